// alloc_client: a process of a job asks the DVM to change size (PMIx_Allocation_request), as an
// application would, from whatever node it runs on, and reports what it got back:
//
//   alloc_client grow <node list> [req id]        PMIX_ALLOC_NEW with PMIX_ALLOC_NODE_LIST
//   alloc_client release <alloc id> <node list>   PMIX_ALLOC_RELEASE
//   alloc_client watch <fifo> <node list> <req id>
//       a bystander: registers for the completion events, prints "watching", waits until a line
//       can be read from <fifo>, then asks for its own grow as `grow` does. Its events line then
//       shows whether an event meant for another requester reached it (it must not): its own
//       event comes after any such one, over the same path.
//   alloc_client grow-and-end <node list> [req id]
//       as grow, but ends after phase one: a requester gone before its campaign completes.
//
// Prints "phase1 <status> alloc <id> req <req id>", then waits for the outcome and prints
// "outcome <status line>" (PMIX_QUERY_ALLOC_STATUS) when the request was accepted. Where this PMIx
// defines the completion codes it then prints
// "events ready <n> failed <m> alloc <id> req <req id> cause <status>" (the failure event's cause,
// prte.alloc.cause) and "event message <text>" (PMIX_EVENT_TEXT_MESSAGE), when one came,
// whether the request was accepted or refused: the events it received, counted after one more
// round trip to the DVM, so that a duplicate, or an event raised for a refusal, would have arrived
// too. Only rank 0 asks; the others just run. Exit 0 once the outcome is known (whatever it is),
// 1 on an error.
#include <pmix.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "client_util.h"

namespace {

const char* const kProgram = "alloc_client";
std::atomic<int> ready_events{0};
std::atomic<int> failed_events{0};
std::string event_alloc, event_req, event_cause, event_message;

#if defined(PMIX_DVM_IS_READY) && defined(PMIX_ERR_DVM_MOD)
void on_event(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*,
              size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_ALLOC_ID) && info[i].value.type == PMIX_STRING) event_alloc = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_ALLOC_REQ_ID) && info[i].value.type == PMIX_STRING) event_req = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], "prte.alloc.cause") && info[i].value.type == PMIX_STATUS) {
            event_cause = PMIx_Error_string(info[i].value.data.status);
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) && info[i].value.type == PMIX_STRING) {
            event_message = info[i].value.data.string;
        }
    }
    if (status == PMIX_DVM_IS_READY) ready_events++;
    else failed_events++;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}
#endif

bool settled(const std::string& line)
{
    auto colon = line.find(": ");
    return colon != std::string::npos && line.compare(colon + 2, 7, "pending") != 0;
}

}  // namespace

int main(int argc, char** argv)
{
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) prte_test::fail(kProgram, "PMIx_Init failed");
    if (me.rank != 0) {
        PMIx_Finalize(nullptr, 0);
        return 0;
    }
    if (argc < 3) {
        prte_test::fail(kProgram, "usage: alloc_client grow <nodes> [req] | release <alloc> <nodes> | watch <fifo> <nodes> <req>");
    }
    std::string verb = argv[1];
#if defined(PMIX_DVM_IS_READY) && defined(PMIX_ERR_DVM_MOD)
    pmix_status_t codes[] = {PMIX_DVM_IS_READY, PMIX_ERR_DVM_MOD};
    // Blocking registration: the handler is in place before "watching" is printed.
    PMIx_Register_event_handler(codes, 2, nullptr, 0, on_event, nullptr, nullptr);
#endif
    if (verb == "watch") {
        if (argc < 5) prte_test::fail(kProgram, "usage: alloc_client watch <fifo> <nodes> <req>");
        std::printf("watching\n");
        std::fflush(stdout);
        FILE* go = std::fopen(argv[2], "r");
        char line[64];
        if (!go || !std::fgets(line, sizeof line, go)) prte_test::fail(kProgram, "cannot read %s", argv[2]);
        std::fclose(go);
        verb = "grow";
        argv += 1;  // now: grow <nodes> <req>
        argc -= 1;
    }
    pmix_info_t info[3];
    size_t ninfo = 0;
    pmix_alloc_directive_t directive = PMIX_ALLOC_NEW;
    std::string req = "none";
    bool end_after_phase1 = verb == "grow-and-end";
    if (verb == "grow" || end_after_phase1) {
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_NODE_LIST, argv[2], PMIX_STRING);
        if (argc > 3) {
            req = argv[3];
            PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_REQ_ID, argv[3], PMIX_STRING);
        }
    } else if (verb == "release" && argc > 3) {
        directive = PMIX_ALLOC_RELEASE;
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_ID, argv[2], PMIX_STRING);
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_ALLOC_NODE_LIST, argv[3], PMIX_STRING);
    } else {
        prte_test::fail(kProgram, "unknown request '%s'", verb.c_str());
    }
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Allocation_request(directive, info, ninfo, &results, &nresults);
    std::string alloc = "none", req_back = "none";
    for (size_t i = 0; i < nresults; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_ALLOC_ID)) alloc = results[i].value.data.string;
        if (PMIX_CHECK_KEY(&results[i], PMIX_ALLOC_REQ_ID)) req_back = results[i].value.data.string;
    }
    std::printf("phase1 %s alloc %s req %s\n", PMIx_Error_string(rc), alloc.c_str(), req_back.c_str());
    std::fflush(stdout);
    if (end_after_phase1) {
        PMIx_Finalize(nullptr, 0);
        return 0;
    }
    if (rc == PMIX_SUCCESS) {
        std::string line;
        for (int i = 0; i < 6000; ++i) {
            line = prte_test::alloc_status(alloc);
            if (settled(line)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::printf("outcome %s\n", line.c_str());
#if defined(PMIX_DVM_IS_READY) && defined(PMIX_ERR_DVM_MOD)
        // The event may trail the status by a message; wait for it (bounded).
        for (int i = 0; i < 500 && ready_events + failed_events == 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
#endif
    }
#if defined(PMIX_DVM_IS_READY) && defined(PMIX_ERR_DVM_MOD)
    // One more round trip, so that a second copy of the event, or one raised for a refused request
    // (there must be none), would be here too.
    prte_test::alloc_status(alloc);
    std::printf("events ready %d failed %d alloc %s req %s cause %s\n", ready_events.load(), failed_events.load(),
                event_alloc.empty() ? "none" : event_alloc.c_str(), event_req.empty() ? "none" : event_req.c_str(),
                event_cause.empty() ? "none" : event_cause.c_str());
    if (!event_message.empty()) std::printf("event message %s\n", event_message.c_str());
#endif
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return 0;
}
