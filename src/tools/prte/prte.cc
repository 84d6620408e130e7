// prte: the DVM master. Starts the DVM (on this node, or on the nodes of --host/--hostfile),
// prints "DVM ready", then runs jobs submitted by prun until pterm, SIGTERM or SIGINT.
//
// Exit status: 0 after an orderly shutdown; 1 when the DVM could not start (one line says why);
// 2 for a usage error.
#include <event2/event.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mca/plm/base/plm_daemons.h"
#include "elastic/campaign_engine.h"
#include "mca/plm/base/plm_launch.h"
#include "pmix/server.h"
#include "prte_config.h"
#include "program/start.h"
#include "rml/rml.h"
#include "runtime/dvm_registry.h"
#include "runtime/loop_timer.h"
#include "runtime/runtime.h"
#include "tools/cli_parse.h"
#include "tools/prte/daemonize.h"
#include "tools/prte/log_file.h"
#include "tools/prte/prte_options.h"
#include "util/output.h"
#include "util/strings.h"

extern char** environ;

namespace {

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'prte --help' for usage)", message);
    return 2;
}

// --report-uri and --report-pid, as PRRTE has them: "-" stdout, "+" stderr, anything else a file
// to write. Both are reported once the DVM is ready, so whoever reads them can use the DVM.
void report(const std::string& where, const std::string& text)
{
    if (where.empty()) return;
    if (where == "-") {
        std::printf("%s\n", text.c_str());
        std::fflush(stdout);
    } else if (where == "+") {
        std::fprintf(stderr, "%s\n", text.c_str());
    } else {
        std::ofstream(where) << text << "\n";
    }
}

// A report file that cannot be written is a usage error found before the DVM starts, not a
// report silently lost once it runs.
bool report_file_writable(const char* option, const std::string& where)
{
    if (where.empty() || where == "-" || where == "+") return true;
    int fd = open(where.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        usage_error(fmt::format("{} {}: cannot write the file: {}", option, where, std::strerror(errno)));
        return false;
    }
    close(fd);
    return true;
}

// The shutdown's bound has passed with jobs left: their daemons are ordered out anyway.
void jobs_overdue(prte::runtime::Runtime& rt)
{
    if (rt.teardown_started()) return;
    std::vector<std::string> left;
    for (const auto& job : rt.jobs().all()) {
        if (!job->is_daemon_job) left.push_back(job->nspace);
    }
    prte::output::warning("job(s) {} did not end within {} s of the shutdown; stopping the daemons anyway",
                          prte::util::join(left, ", "), rt.settings().master_teardown_timeout().count());
    rt.start_teardown();
}

void begin_shutdown(prte::runtime::Runtime& rt, prte::runtime::LoopTimer& bound)
{
    // Grows still in flight end as failures (their daemons stopped, their parked jobs aborted)
    // before the jobs are ended, so that no job stays parked across the teardown.
    rt.campaigns().drain("the DVM is shutting down");
    for (const auto& job : rt.jobs().all()) {
        if (!job->is_daemon_job) prte::plm::base::terminate_job(job, "the DVM is shutting down");
    }
    rt.finish_shutdown_when_idle();
    if (rt.teardown_started()) return;
    // Jobs end when their daemons report their processes gone. A daemon that stopped answering
    // never will: after the daemons' own bound, stop waiting and order the daemons out anyway (the
    // teardown then names whichever did not answer).
    bound.arm(rt.settings().master_teardown_timeout());
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("prte");
    std::vector<std::string> args(argv + 1, argv + argc);
    prte::program::MCASettings mca_settings;
    if (prte::Status st = prte::program::extract_mca_args(args, mca_settings); !st) return usage_error(st.message());

    prte::tools::PrteOptions options;
    CLI::App app{"prte: start a persistent Distributed Virtual Machine and run jobs submitted with prun", "prte"};
    prte::tools::add_prte_options(app, options);
    app.footer("Parameters: --prtemca <name> <value> (see prte_info --param all all).");
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;
    if (options.version) {
        std::printf("prte %s\n", PACKAGE_VERSION);
        return 0;
    }
    prte::runtime::JobDefaults job_defaults;
    if (prte::Status st = prte::tools::finish_prte_options(options, environ, mca_settings, job_defaults); !st) {
        return usage_error(st.message());
    }
    for (const std::string& note : options.notes) prte::output::note("{}", note);
    if (!report_file_writable("--report-uri", options.report_uri) ||
        !report_file_writable("--report-pid", options.report_pid) ||
        !report_file_writable("--log-file", options.log_file)) {
        return 2;
    }

    // Before any thread exists: fork() and threads do not mix.
    prte::tools::Daemonizer daemonizer;
    if (options.daemonize) {
        if (int parent_exit = daemonizer.fork_and_wait(!options.no_ready_msg); parent_exit >= 0) return parent_exit;
    } else if (options.set_sid) {
        setsid();  // --daemonize's child does so already
    }

    auto& rt = prte::runtime::Runtime::instance();
    // Each part that starts registers its stop with rt.finalize(), run in reverse: an error path
    // is rt.finalize() alone (program/start.h).
    if (prte::Status st = prte::program::start_master(environ, mca_settings); !st) {
        prte::output::error("{}", st.message());
        rt.finalize();
        return 1;
    }
    rt.job_defaults() = job_defaults;

    // The log: --log-file, else the parameter, else (daemonized) the session directory's prte.log.
    std::string log_path = !options.log_file.empty() ? options.log_file : rt.settings().log_file;
    if (log_path.empty() && options.daemonize) log_path = rt.identity().session_dir + "/prte.log";
    if (!log_path.empty() && log_path[0] != '/') {
        char cwd[4096];
        if (getcwd(cwd, sizeof(cwd))) log_path = std::string(cwd) + "/" + log_path;  // SIGHUP reopens it from anywhere
    }
    std::string daemon_logs;
    if (options.debug_daemons_file || rt.settings().debug_daemons_file) {
        std::string dir = log_path.empty() ? rt.identity().session_dir : log_path.substr(0, log_path.rfind('/'));
        prte::plm::base::set_daemon_log_dir(dir);
        daemon_logs = dir + "/prted.*.log";
    }
    prte::tools::DvmLog log;
    rt.set_ready_handler([&] {
        if (prte::Status st = prte::runtime::dvm_registry::publish(prte::pmix::uri(), rt.identity().dvm_nspace,
                                                                   log_path, daemon_logs, options.system_server);
            !st) {
            prte::output::warning("{}", st.message());
        }
        // Reported on the terminal ("-", "+") before the log takes stdout and stderr over.
        report(options.report_uri, prte::pmix::uri());
        report(options.report_pid, std::to_string(getpid()));
        if (options.verbose) {
            prte::output::note("DVM {} ready on {} node(s), URI {}", rt.identity().dvm_nspace, rt.pool().nodes().size(),
                               prte::pmix::uri());
        }
        if (!log_path.empty()) {
            if (prte::Status st = log.start(log_path); !st) prte::output::warning("{}: messages go nowhere", st.message());
        }
        if (options.daemonize) {
            daemonizer.report_ready(log.active());
        } else if (!options.no_ready_msg) {
            std::printf("DVM ready\n");
            std::fflush(stdout);
        }
    });
    // main's own, so that it goes before the loop does, armed or not.
    prte::runtime::LoopTimer shutdown_bound(rt.loop(), [&rt] { jobs_overdue(rt); });
    rt.set_shutdown_handler([&] { begin_shutdown(rt, shutdown_bound); });
    // SIGHUP: with a log, logrotate's "reopen it"; without one, the terminal's hangup (stop).
    rt.shutdown_on_signals(log_path.empty());
    if (!log_path.empty()) {
        event* hup = evsignal_new(
            rt.loop().base(), SIGHUP,
            [](evutil_socket_t, short, void* arg) {
                auto* dvm_log = static_cast<prte::tools::DvmLog*>(arg);
                if (prte::Status st = dvm_log->reopen(); !st) prte::output::warning("SIGHUP: {}", st.message());
            },
            &log);
        event_add(hup, nullptr);  // lives until the DVM exits
    }
    // --keepalive: the DVM ends when whoever holds the pipe's other end closes it (or exits).
    struct Keepalive {
        event* ev = nullptr;
        prte::runtime::Runtime* rt = nullptr;
    } keepalive{nullptr, &rt};
    if (options.keepalive_fd >= 0) {
        keepalive.ev = event_new(
            rt.loop().base(), options.keepalive_fd, EV_READ | EV_PERSIST,
            [](evutil_socket_t fd, short, void* arg) {
                char buf[256];
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) return;
                auto* k = static_cast<Keepalive*>(arg);
                event_del(k->ev);  // EOF stays readable: once is enough
                k->rt->request_shutdown(0, "the --keepalive pipe was closed");
            },
            &keepalive);
        event_add(keepalive.ev, nullptr);  // lives until the DVM exits
    }
    prte::plm::base::set_dvm_resources(options.hosts, options.hostfile);

    // The DVM starts as the daemon job running through the launch states (spec 7.4.3).
    auto daemon_job = rt.jobs().daemon_job();
    rt.state().activate_job_state(daemon_job, prte::runtime::JobState::init);
    rt.loop().run();

    int status = rt.exit_status();
    if (rt.dvm_ready()) prte::runtime::dvm_registry::unpublish();
    // The messenger and the PMIx server stop here, while the campaign engine still exists (as they
    // always have); their steps registered above then find them stopped (both stops are idempotent).
    prte::rml::Messenger::instance().flush();
    prte::rml::Messenger::instance().stop();
    prte::pmix::stop();
    rt.finalize();
    return status;
}
