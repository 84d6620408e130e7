// pterm: stops a running DVM. Finds it as prun does (--dvm-uri, --dvm, or the single DVM of this
// user), asks it to terminate (PMIx_Job_control PMIX_JOB_CTRL_TERMINATE on the DVM's namespace),
// and returns only once the DVM has exited: its connection dropped and, when its pid is known on
// this node, the process is gone.
//
// When some of its daemons did not answer the order to exit, the DVM says which, and what it did
// about them, in a note pterm prints (dvm_registry::take_teardown_note).
//
// Exit status: 0 once the DVM has exited; 1 when it cannot be found, refuses, or does not exit in
// time (one line says which); 2 for a usage error.
#include <signal.h>
#include <unistd.h>

#include <pmix_tool.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "prte_config.h"
#include "runtime/dvm_registry.h"
#include "tools/cli_parse.h"
#include "tools/prun/tool_connection.h"
#include "util/output.h"
#include "util/strings.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace registry = prte::runtime::dvm_registry;

prte::output::VerboseStream trace("pterm");

constexpr auto kExitDeadline = std::chrono::seconds(30);

std::atomic<bool> connection_lost{false};
std::atomic<bool> control_replied{false};
std::atomic<int> control_status{PMIX_SUCCESS};

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'pterm --help' for usage)", message);
    return 2;
}

void on_lost_connection(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*, size_t,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    connection_lost = true;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_control_replied(pmix_status_t status, pmix_info_t*, size_t, void*, pmix_release_cbfunc_t release_fn,
                        void* release_cbdata)
{
    control_status = status;
    control_replied = true;
    if (release_fn) release_fn(release_cbdata);
}

std::string local_host()
{
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

// The DVM's namespace: from the registry, from its URI, or from the server we are connected to.
std::string dvm_nspace(const registry::Entry& dvm)
{
    if (!dvm.nspace.empty()) return dvm.nspace;
    std::string ns = registry::nspace_from_uri(dvm.uri);
    if (!ns.empty()) return ns;
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    if (PMIx_tool_get_servers(&servers, &nservers) == PMIX_SUCCESS && nservers > 0) {
        ns = servers[0].nspace;
        PMIX_PROC_FREE(servers, nservers);
    }
    return ns;
}

int terminate(const registry::Entry& dvm)
{
    std::string which = dvm.pid > 0 ? fmt::format("the DVM (pid {})", dvm.pid) : fmt::format("the DVM at {}", dvm.uri);
    prte::tools::ToolConnection connection;
    if (prte::Status st = connection.connect(dvm, trace.enabled(1)); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    pmix_status_t codes[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    PMIx_Register_event_handler(codes, 2, nullptr, 0, on_lost_connection, nullptr, nullptr);

    std::string ns = dvm_nspace(dvm);
    if (ns.empty()) {
        prte::output::error("cannot tell the namespace of {}: use --dvm pid:<n> for a DVM listed in {}", which,
                            registry::directory());
        return 1;
    }
    trace(1, "terminating {} (namespace {})", which, ns);

    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns.c_str(), PMIX_RANK_WILDCARD);
    prte::tools::InfoList directives;
    directives.add_bool(PMIX_JOB_CTRL_TERMINATE, true);
    pmix_status_t rc = PMIx_Job_control_nb(&target, 1, directives.data(), directives.size(), on_control_replied,
                                           nullptr);
    if (rc != PMIX_SUCCESS) {
        prte::output::error("{} refused to terminate: {}", which, prte::tools::status_text(rc));
        return 1;
    }

    // The DVM may drop the connection before (or instead of) answering: either means it is going.
    bool watch_pid = dvm.pid > 0 && (dvm.host.empty() || dvm.host == local_host());
    auto deadline = Clock::now() + kExitDeadline;
    while (true) {
        // A reply of COMM-FAILURE is the DVM hanging up as it exits, seen by the reply before the
        // lost-connection event: it is going, as asked (the pid, when known, says when it is gone).
        int replied = control_status.load();
        bool hung_up = control_replied && (replied == PMIX_ERR_COMM_FAILURE || replied == PMIX_ERR_LOST_CONNECTION ||
                                           replied == PMIX_ERR_UNREACH);
        if (control_replied && replied != PMIX_SUCCESS && replied != PMIX_OPERATION_SUCCEEDED && !hung_up &&
            !connection_lost) {
            prte::output::error("{} refused to terminate: {}", which, prte::tools::status_text(replied));
            return 1;
        }
        // The DVM has exited when its process is gone; without a pid to watch, when it hung up.
        if (watch_pid ? !registry::process_alive(dvm.pid) : (connection_lost.load() || hung_up)) break;
        if (Clock::now() >= deadline) {
            prte::output::error("{} did not exit within {} seconds of being told to terminate{}", which,
                                std::chrono::duration_cast<std::chrono::seconds>(kExitDeadline).count(),
                                watch_pid ? fmt::format(" (kill it with: kill {})", dvm.pid) : std::string());
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    trace(1, "{} has exited", which);
    // The DVM leaves a note when some of its daemons did not answer: pass it on, it is the user's
    // only word on them (the DVM's own stderr may be long gone with --daemonize).
    if (watch_pid) {
        std::istringstream note(registry::take_teardown_note(dvm.pid));
        for (std::string line; std::getline(note, line);) {
            if (!line.empty()) prte::output::warning("{}", line);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("pterm");
    signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);

    std::string dvm_uri, dvm, pid, nspace;
    bool verbose = false, version = false, system_first = false, system_only = false;
    int wait_seconds = 0, retries = 0;
    std::vector<std::string> mca, pmix_mca;
    CLI::App app{"pterm: stop a running DVM (started with 'prte --daemonize'), returning once it has exited", "pterm"};
    app.add_option("--dvm-uri", dvm_uri, "The DVM to stop: its URI, or file:<path> holding it (prte --report-uri)")
        ->type_name("URI");
    app.add_option("--dvm", dvm,
                   "The DVM to stop: pid:<n>, file:<path>, uri:<uri>, ns:<namespace>, search, system or system-first")
        ->type_name("SELECTOR");
    app.add_option("--pid", pid, "The DVM to stop, by its pid (or file:<path> holding it): --dvm pid:<n>")
        ->type_name("PID");
    app.add_option("--namespace", nspace, "The DVM to stop, by its namespace: --dvm ns:<namespace>")
        ->type_name("NSPACE");
    app.add_flag("--system-server-first", system_first,
                 "Stop the system-level DVM (prte --system-server) if there is one, else this user's only DVM");
    app.add_flag("--system-server-only", system_only, "Stop the system-level DVM (prte --system-server), only it");
    app.add_option("--wait-to-connect", wait_seconds,
                   "Seconds to wait between attempts to find the DVM (with --num-connect-retries)")
        ->type_name("SECONDS");
    app.add_option("--num-connect-retries", retries, "How many more times to look for the DVM before giving up")
        ->type_name("N");
    app.add_option("--prtemca,--mca", mca, "Accepted for compatibility; pterm has no parameters of its own")
        ->expected(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("NAME VALUE");
    app.add_option("--pmixmca", pmix_mca, "Set PMIx parameter <name> to <value> for pterm's PMIx (PMIX_MCA_<name>)")
        ->expected(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("NAME VALUE");
    bool as_root = false;
    app.add_flag("--allow-run-as-root", as_root, "Accepted: pterm never refuses to run as root");
    app.add_flag("-v,--verbose", verbose, "Say which DVM is stopped");
    app.add_flag("-V,--version", version, "Show the version");
    app.footer("Without a choice of DVM, pterm stops the only DVM this user runs.");
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;
    if (version) {
        std::printf("pterm %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (verbose) trace.set_level(1);
    for (size_t i = 0; i + 1 < pmix_mca.size(); i += 2) setenv(("PMIX_MCA_" + pmix_mca[i]).c_str(), pmix_mca[i + 1].c_str(), 1);
    int choices = !dvm.empty() + !dvm_uri.empty() + !pid.empty() + !nspace.empty() + system_first + system_only;
    if (choices > 1) {
        return usage_error("--dvm, --dvm-uri, --pid, --namespace, --system-server-first and --system-server-only each "
                           "choose a DVM: give only one");
    }
    if (!pid.empty()) dvm = "pid:" + pid;
    if (!nspace.empty()) dvm = "ns:" + nspace;
    if (system_first) dvm = "system-first";
    if (system_only) dvm = "system";
    if (wait_seconds < 0 || retries < 0) return usage_error("--wait-to-connect and --num-connect-retries take a number >= 0");
    if (!pid.empty() && prte::util::starts_with(pid, "file:")) {
        std::ifstream in(pid.substr(5));
        std::string text;
        if (!(in >> text)) return usage_error(fmt::format("--pid {}: cannot read a pid from the file", pid));
        dvm = "pid:" + text;
    }

    // --num-connect-retries N: N more looks, --wait-to-connect seconds apart, for a DVM still starting.
    registry::Entry entry;
    for (int attempt = 0;; ++attempt) {
        prte::Status st = registry::locate({dvm_uri, dvm}, entry);
        if (st) break;
        if (attempt >= retries || st.code() != prte::Errc::not_found) {
            prte::output::error("{}", st.message());
            return 1;
        }
        trace(1, "no DVM yet ({}); looking again in {} s", st.message(), wait_seconds);
        std::this_thread::sleep_for(std::chrono::seconds(wait_seconds));
    }
    trace(1, "stopping the DVM {}", registry::describe(entry));
    if (!entry.log.empty()) trace(1, "its log: {}", entry.log);
    if (!entry.daemon_logs.empty()) trace(1, "its daemons' logs: {}", entry.daemon_logs);
    return terminate(entry);
}
