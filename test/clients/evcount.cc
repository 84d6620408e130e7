// evcount: counts a PMIx event at every receiver. Every rank registers for two user-defined codes
// (kTestEvent and kEndEvent, chosen by --code N) and says "evcount ready rank R host H"; then
//   --send RANGE [--custom R,R...]  rank 0 of this job, once the job's ranks are all registered
//                                   (a fence), notifies kTestEvent with RANGE (proc_local, local,
//                                   namespace, session, global, rm or custom: the listed ranks of
//                                   this job), then kEndEvent with PMIX_RANGE_GLOBAL;
//   (no --send)                     a listener: only counts.
// Each rank waits (at most 30 s) for kEndEvent, which follows the test event on the same path,
// and prints "evcount rank R job J host H got C" with C the number of kTestEvent it received:
// 1 inside the range, 0 outside, never 2. The sender prints "evcount sender rank 0 ..." instead.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_util.h"

namespace {

const char* program = "evcount";
// PMIx servers keep events and hand them to processes that register later: each test uses its
// own pair of codes (--code N), so that a job never counts an earlier job's event.
pmix_status_t kTestEvent = PMIX_EXTERNAL_ERR_BASE - 100;
pmix_status_t kEndEvent = PMIX_EXTERNAL_ERR_BASE - 101;

std::mutex lock;
std::condition_variable changed;
int test_events = 0;
bool ended = false;

void on_event(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t[], size_t, pmix_info_t*, size_t,
              pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    {
        std::lock_guard<std::mutex> g(lock);
        if (status == kTestEvent) ++test_events;
        if (status == kEndEvent) ended = true;
    }
    changed.notify_all();
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void registered(pmix_status_t status, size_t, void* cbdata)
{
    auto* done = static_cast<std::atomic<int>*>(cbdata);
    done->store(status == PMIX_SUCCESS ? 1 : -1);
}

pmix_data_range_t parse_range(const std::string& name)
{
    if (name == "proc_local") return PMIX_RANGE_PROC_LOCAL;
    if (name == "local") return PMIX_RANGE_LOCAL;
    if (name == "namespace") return PMIX_RANGE_NAMESPACE;
    if (name == "session") return PMIX_RANGE_SESSION;
    if (name == "global") return PMIX_RANGE_GLOBAL;
    if (name == "rm") return PMIX_RANGE_RM;
    if (name == "custom") return PMIX_RANGE_CUSTOM;
    prte_test::fail(program, "--send %s: not a range (proc_local, local, namespace, session, global, rm, custom)",
                    name.c_str());
}

void notify(pmix_status_t code, pmix_data_range_t range, const std::vector<pmix_proc_t>& custom)
{
    std::vector<pmix_info_t> info(1);
    if (range == PMIX_RANGE_CUSTOM) {
        pmix_data_array_t array;
        array.type = PMIX_PROC;
        array.size = custom.size();
        array.array = const_cast<pmix_proc_t*>(custom.data());
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &array, PMIX_DATA_ARRAY);
    } else {
        info.clear();
    }
    pmix_status_t rc = PMIx_Notify_event(code, nullptr, range, info.data(), info.size(), nullptr, nullptr);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        prte_test::fail(program, "PMIx_Notify_event(%s) failed: %s", PMIx_Data_range_string(range),
                        PMIx_Error_string(rc));
    }
}

}  // namespace

int main(int argc, char** argv)
{
    std::string send;
    std::string custom_ranks;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--send") == 0 && i + 1 < argc) {
            send = argv[++i];
        } else if (std::strcmp(argv[i], "--custom") == 0 && i + 1 < argc) {
            custom_ranks = argv[++i];
        } else if (std::strcmp(argv[i], "--code") == 0 && i + 1 < argc) {
            int n = std::atoi(argv[++i]);
            kTestEvent = PMIX_EXTERNAL_ERR_BASE - 100 - 2 * n;
            kEndEvent = kTestEvent - 1;
        } else {
            prte_test::fail(program, "unknown argument '%s'", argv[i]);
        }
    }
    pmix_data_range_t range = send.empty() ? PMIX_RANGE_UNDEF : parse_range(send);
    pmix_proc_t me = prte_test::init(program);
    std::string host = prte_test::get_string(program, &me, PMIX_HOSTNAME);

    pmix_status_t codes[] = {kTestEvent, kEndEvent};
    std::atomic<int> done{0};
    PMIx_Register_event_handler(codes, 2, nullptr, 0, on_event, registered, &done);
    while (done.load() == 0) std::this_thread::yield();
    if (done.load() < 0) prte_test::fail(program, "rank %u: cannot register the event handler", me.rank);
    std::printf("evcount ready rank %u host %s\n", me.rank, host.c_str());
    std::fflush(stdout);

    if (!send.empty()) {
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
        pmix_status_t rc = PMIx_Fence(&job, 1, nullptr, 0);
        if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Fence failed: %s", me.rank, PMIx_Error_string(rc));
        if (me.rank == 0) {
            std::vector<pmix_proc_t> custom;
            for (const char* p = custom_ranks.c_str(); *p;) {
                char* end = nullptr;
                pmix_proc_t target;
                PMIX_LOAD_PROCID(&target, me.nspace, static_cast<pmix_rank_t>(std::strtoul(p, &end, 10)));
                custom.push_back(target);
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p) prte_test::fail(program, "--custom %s: expected ranks", custom_ranks.c_str());
            }
            notify(kTestEvent, range, custom);
            notify(kEndEvent, PMIX_RANGE_GLOBAL, {});
            // Whether PMIx hands a process its own events is PMIx's affair: the sender does not count.
            std::printf("evcount sender rank %u job %s host %s\n", me.rank, me.nspace, host.c_str());
            std::fflush(stdout);
            prte_test::finalize(program);
            return 0;
        }
    }

    std::unique_lock<std::mutex> g(lock);
    if (!changed.wait_for(g, std::chrono::seconds(30), [] { return ended; })) {
        prte_test::fail(program, "rank %u: no end event within 30 s (%d test event(s) so far)", me.rank, test_events);
    }
    std::printf("evcount rank %u job %s host %s got %d\n", me.rank, me.nspace, host.c_str(), test_events);
    std::fflush(stdout);
    g.unlock();
    prte_test::finalize(program);
    return 0;
}
