// palloc: grows or shrinks a running elastic DVM (PMIx_Allocation_request), as OpenPMIx 5's
// palloc does, which Debian's PMIx 4.2.2 lacks.
//
//   palloc -w node6,node7 [--request-id r1]   grow by these nodes (a new allocation)
//   palloc -N 2                                grow by 2 nodes (from a pool: ras_ssh_pool)
//   palloc --extend <alloc id> -w node8        grow an existing allocation
//   palloc --shrink <alloc id> -w node5        release node5: its daemon leaves the DVM
//   palloc --status <alloc id>                 what the allocation's latest size change came to
//
// It prints the allocation id, then waits for the outcome (the PMIX_DVM_IS_READY /
// PMIX_ERR_DVM_MOD event where this PMIx defines them, else the allocation status, which every
// PMIx can query) unless --do-not-wait, and prints it: "<id>: ready; ...", "<id>: released; ...",
// "<id>: failed: <cause>; ...".
//
// Exit status: 0 on success; 1 when the request is refused, the change fails, the wait times out
// or the DVM goes away meanwhile (one line says why); 2 for a usage error.
#include <signal.h>
#include <unistd.h>

#include <pmix_tool.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "prte_config.h"
#include "runtime/dvm_registry.h"
#include "tools/cli_parse.h"
#include "tools/prun/tool_connection.h"
#include "util/output.h"

namespace {

namespace registry = prte::runtime::dvm_registry;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string dvm_uri;
    std::string dvm;
    pid_t pid = 0;
    std::string request_id;
    uint64_t nodes = 0;
    std::string nodelist;
    std::string extend;
    std::string shrink;
    std::string status;
    bool do_not_wait = false;
    int timeout = 120;
};

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'palloc --help' for usage)", message);
    return 2;
}

// The DVM gone while we wait (it crashed, was killed or stopped): PMIx's blocking calls would wait
// for ever, so this handler, on PMIx's thread, says so and ends palloc at once.
void on_lost_connection(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*, size_t,
                        pmix_event_notification_cbfunc_fn_t, void*)
{
    static const char kLost[] = "palloc: error: lost the connection to the DVM before the request completed\n";
    (void)!write(STDERR_FILENO, kLost, sizeof(kLost) - 1);
    _exit(1);
}

std::atomic<int> outcome_event{0};  // 1 ready, 2 failed
std::string event_message;

#ifdef PRTE_HAVE_PMIX_DVM_EVENTS
void on_outcome(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*,
                size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    event_message = prte::tools::info_string(info, ninfo, PMIX_EVENT_TEXT_MESSAGE);
    outcome_event = status == PMIX_DVM_IS_READY ? 1 : 2;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}
#endif

// One query key (with an allocation id, or else a process, as its qualifier when given); empty
// when not answered.
std::string query_key(const char* key, const std::string& alloc_id, pmix_status_t& rc, const pmix_proc_t* self = nullptr)
{
    pmix_info_t qualifier;
    PMIX_INFO_CONSTRUCT(&qualifier);
    if (!alloc_id.empty()) {
        PMIX_INFO_LOAD(&qualifier, PMIX_ALLOC_ID, alloc_id.c_str(), PMIX_STRING);
    } else if (self) {
        PMIX_INFO_LOAD(&qualifier, PMIX_PROCID, self, PMIX_PROC);
    } else {
        return prte::tools::query_string(key, rc);
    }
    std::string text = prte::tools::query_string(key, rc, &qualifier);
    PMIX_INFO_DESTRUCT(&qualifier);
    return text;
}

// PMIX_QUERY_ALLOC_STATUS for one allocation; empty when it is not known. With `request`, its
// phase is that request's outcome: two shrinks of one allocation at once each wait for their own.
std::string query_status(const std::string& alloc_id, pmix_status_t& rc, const std::string& request = {})
{
    if (request.empty()) return query_key(PMIX_QUERY_ALLOC_STATUS, alloc_id, rc);
    pmix_info_t qualifiers[2];
    PMIX_INFO_LOAD(&qualifiers[0], PMIX_ALLOC_ID, alloc_id.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&qualifiers[1], PMIX_ALLOC_REQ_ID, request.c_str(), PMIX_STRING);
    std::string text = prte::tools::query_string(PMIX_QUERY_ALLOC_STATUS, rc, qualifiers, 2);
    PMIX_INFO_DESTRUCT(&qualifiers[0]);
    PMIX_INFO_DESTRUCT(&qualifiers[1]);
    return text;
}

bool has_word(const std::string& line, const std::string& word)
{
    auto colon = line.find(": ");
    return colon != std::string::npos && line.compare(colon + 2, word.size(), word) == 0;
}

int print_status(const std::string& alloc_id)
{
    pmix_status_t rc = PMIX_SUCCESS;
    std::string text = query_status(alloc_id, rc);
    if (text.empty()) {
        prte::output::error("allocation {} is not known to the DVM ({})", alloc_id, prte::tools::status_text(rc));
        return 1;
    }
    std::printf("%s\n", text.c_str());
    return has_word(text, "failed") ? 1 : 0;
}

// Waits for the outcome: the event when there is one, else (or meanwhile) the status.
int wait_for_outcome(const std::string& alloc_id, const std::string& request, int timeout)
{
    auto deadline = Clock::now() + std::chrono::seconds(timeout);
    std::string text;
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
        pmix_status_t rc = PMIX_SUCCESS;
        if (outcome_event == 0) {
            text = query_status(alloc_id, rc, request);
            if (!text.empty() && !has_word(text, "pending")) break;
        } else {
            text = query_status(alloc_id, rc, request);
            break;
        }
        if (Clock::now() >= deadline) {
            prte::output::error("allocation {} did not complete within {} s (its status: {})", alloc_id, timeout,
                                text.empty() ? prte::tools::status_text(rc) : text);
            return 1;
        }
        std::this_thread::sleep_for(pause);
    }
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
    if (outcome_event == 2 || has_word(text, "failed")) {
        prte::output::error("allocation {} failed{}", alloc_id, event_message.empty() ? "" : ": " + event_message);
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("palloc");
    signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    Options o;
    bool version = false;
    CLI::App app{"palloc: grow or shrink a running elastic DVM (prte --prtemca prte_elastic_mode 1)", "palloc"};
    app.add_option("--dvm-uri,--uri", o.dvm_uri, "The DVM: its URI, or file:<path> holding it")->type_name("URI");
    app.add_option("--dvm", o.dvm, "The DVM: pid:<n>, file:<path>, uri:<uri> or ns:<namespace>")->type_name("SELECTOR");
    app.add_option("--pid", o.pid, "The DVM's pid")->type_name("PID");
    app.add_option("--request-id", o.request_id, "Your own id for this request (PMIX_ALLOC_REQ_ID)");
    CLI::Option* nodes_given = app.add_option("-N,--nodes", o.nodes, "Grow by this many nodes (PMIX_ALLOC_NUM_NODES)")
                                   ->type_name("N");
    app.add_option("-w,--nodelist", o.nodelist, "These nodes: n1,n2 or n[1-4] (PMIX_ALLOC_NODE_LIST)")->type_name("LIST");
    app.add_option("--extend", o.extend, "Grow this allocation (PMIX_ALLOC_EXTEND)")->type_name("ALLOC_ID");
    app.add_option("--shrink", o.shrink, "Release nodes (-w) of this allocation (PMIX_ALLOC_RELEASE)")->type_name("ALLOC_ID");
    app.add_option("--status", o.status, "Print what the allocation's latest size change came to")->type_name("ALLOC_ID");
    app.add_flag("--do-not-wait", o.do_not_wait, "Print the allocation id and return without waiting for the outcome");
    app.add_option("--timeout", o.timeout, "Seconds to wait for the outcome (default 120)")->type_name("SECONDS");
    app.add_flag("-V,--version", version, "Show the version");
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;
    if (version) {
        std::printf("palloc %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (!o.extend.empty() + !o.shrink.empty() + !o.status.empty() > 1) {
        return usage_error("give only one of --extend, --shrink and --status");
    }
    if (o.status.empty() && nodes_given->count() == 0 && o.nodelist.empty()) {
        return usage_error("say which nodes: -N <count> or -w <node list>");
    }
    if (!o.shrink.empty() && o.nodelist.empty()) return usage_error("--shrink needs the nodes to release: -w <node list>");
    if (o.pid > 0 && o.dvm.empty()) o.dvm = fmt::format("pid:{}", o.pid);

    registry::Entry entry;
    if (prte::Status st = registry::locate({o.dvm_uri, o.dvm}, entry); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    prte::tools::ToolConnection connection;
    if (prte::Status st = connection.connect(entry, false); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    if (!o.status.empty()) return print_status(o.status);

    pmix_status_t lost[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    PMIx_Register_event_handler(lost, 2, nullptr, 0, on_lost_connection, nullptr, nullptr);
#ifdef PRTE_HAVE_PMIX_DVM_EVENTS
    pmix_status_t codes[] = {PMIX_DVM_IS_READY, PMIX_ERR_DVM_MOD};
    PMIx_Register_event_handler(codes, 2, nullptr, 0, on_outcome, nullptr, nullptr);
#endif
    pmix_alloc_directive_t directive = !o.shrink.empty() ? PMIX_ALLOC_RELEASE
                                       : !o.extend.empty() ? PMIX_ALLOC_EXTEND
                                                           : PMIX_ALLOC_NEW;
    prte::tools::InfoList info;
    if (!o.nodelist.empty()) info.add_string(PMIX_ALLOC_NODE_LIST, o.nodelist);
    // -N 0 goes to the DVM too, which says what is wrong with it.
    if (nodes_given->count() > 0) info.add_uint64(PMIX_ALLOC_NUM_NODES, o.nodes);
    std::string id = !o.shrink.empty() ? o.shrink : o.extend;
    if (!id.empty()) info.add_string(PMIX_ALLOC_ID, id);
    // Always named: the DVM keeps each named request's outcome, which the wait below asks for.
    if (o.request_id.empty()) {
        char host[256] = {};
        gethostname(host, sizeof(host) - 1);
        o.request_id = fmt::format("palloc-{}-{}-{}", host, getpid(), time(nullptr));
    }
    info.add_string(PMIX_ALLOC_REQ_ID, o.request_id);

    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Allocation_request(directive, info.data(), info.size(), &results, &nresults);
    std::string alloc_id = prte::tools::info_string(results, nresults, PMIX_ALLOC_ID);
    std::string why = prte::tools::info_string(results, nresults, PMIX_EVENT_TEXT_MESSAGE);
    if (results) PMIX_INFO_FREE(results, nresults);
    if (rc != PMIX_SUCCESS) {
        // PMIx 4.2 drops the answer's info on a refusal: ask the DVM why (pmix/attributes.h).
        pmix_status_t ignored = PMIX_SUCCESS;
        if (why.empty()) why = query_key("prte.alloc.refusal", {}, ignored, &connection.self());
        prte::output::error("the DVM refused the request: {}{}", why.empty() ? "" : why + " ",
                            "(" + prte::tools::status_text(rc) + ")");
        return 1;
    }
    if (alloc_id.empty()) alloc_id = id;
    std::printf("%s\n", alloc_id.c_str());
    std::fflush(stdout);
    if (o.do_not_wait) return 0;
    return wait_for_outcome(alloc_id, o.request_id, o.timeout);
}
