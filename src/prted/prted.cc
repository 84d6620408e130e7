// prted: the daemon a DVM master starts on each node (through plm/ssh). It runs a PMIx server for
// the node's processes, launches them when the master says, reports their states and forwards their
// output to the master, and routes messages along the radix tree.
//
// Started as `prted --dvm-uri <master's URI> --rank <n> --dvm-nspace <ns> [--prtemca name value]...`
// with the DVM secret as the first line of its standard input (never on the command line). It
// exits when the master orders it to, when it loses the master, or on SIGTERM - in every case
// after killing and reaping its processes.
//
// Exit status: 0 after an ordered exit; 1 when it could not start or lost the master; 2 usage.
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "mca/errmgr/base/errmgr_base.h"
#include "mca/plm/base/plm_messages.h"
#include "pmix/server.h"
#include "prte_config.h"
#include "program/start.h"
#include "prted/daemon_handlers.h"
#include "prted/exit_watchdog.h"
#include "prted/heartbeat.h"
#include "rml/auth.h"
#include "rml/rml.h"
#include "runtime/hw_topology.h"
#include "runtime/runtime.h"
#include "runtime/topology.h"
#include "tools/cli_parse.h"
#include "util/output.h"

extern char** environ;

namespace {

struct Options {
    std::string dvm_uri;
    uint32_t rank = 0;
    std::string dvm_nspace;
};

int usage_error(const std::string& message)
{
    prte::output::error("{} (prted is started by prte; see 'prted --help')", message);
    return 2;
}

// The secret is the first line of stdin; stdin is then /dev/null (a daemon reads nothing else).
bool read_secret(std::string& secret)
{
    if (isatty(STDIN_FILENO)) return false;
    std::getline(std::cin, secret);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        close(null_fd);
    }
    return prte::rml::auth::well_formed(secret);
}


// Testing only (prte_test_wedge_on_sigusr2): SIGUSR2 blocks the event loop for good, as a PMIx
// callback that never returned once did, so that tests can show the exit watchdog ending the daemon.
void wedge_loop_on_sigusr2(event_base* base)
{
    event* ev = evsignal_new(
        base, SIGUSR2,
        [](evutil_socket_t, short, void*) {
            prte::output::error("daemon {}: event loop wedged on purpose (prte_test_wedge_on_sigusr2)",
                                prte::runtime::Runtime::instance().identity().rank);
            while (true) pause();
        },
        nullptr);
    event_add(ev, nullptr);  // lives as long as the process
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("prted");
    std::vector<std::string> args(argv + 1, argv + argc);
    prte::program::MCASettings mca_settings;
    if (prte::Status st = prte::program::extract_mca_args(args, mca_settings); !st) return usage_error(st.message());
    // Before the required options are checked: `prted --version` alone is a question, not a start.
    if (std::find(args.begin(), args.end(), "--version") != args.end() ||
        std::find(args.begin(), args.end(), "-V") != args.end()) {
        std::printf("prted %s\n", PACKAGE_VERSION);
        return 0;
    }
    Options options;
    CLI::App app{"prted: a DVM daemon, started by prte on each node", "prted"};
    bool version = false;  // answered above; listed so that --help shows it
    app.add_flag("-V,--version", version, "Show the version");
    app.add_option("--dvm-uri", options.dvm_uri, "The master's contact URI")->required();
    app.add_option("--rank", options.rank, "This daemon's rank in the DVM")->required()->check(CLI::Range(1u, 1u << 30));
    app.add_option("--dvm-nspace", options.dvm_nspace, "The DVM's namespace")->required();
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;
    std::string secret;
    if (!read_secret(secret)) {
        return usage_error("no DVM secret on standard input: prted expects the secret prte hands it, as the first line");
    }

    auto& rt = prte::runtime::Runtime::instance();
    rt.identity().rank = options.rank;
    rt.identity().dvm_nspace = options.dvm_nspace;
    prte::program::DaemonStart start;
    start.master_uri = options.dvm_uri;
    start.secret = secret;
    // From here on, nothing this daemon runs can keep it alive past its bound.
    start.before_servers = [&rt] {
        prte::prted::exit_watchdog::start(rt.settings().daemon_exit_timeout, rt.identity().session_dir);
    };
    // Each part that starts registers its stop with rt.finalize(), run in reverse: an error path
    // is rt.finalize() alone, and so is the end (program/start.h).
    if (prte::Status st = prte::program::start_daemon(environ, mca_settings, start); !st) {
        prte::output::error("daemon {}: {}", options.rank, st.message());
        rt.finalize();
        return 1;
    }
    auto& messenger = prte::rml::Messenger::instance();
    messenger.set_ready_listener([](prte::runtime::Rank peer, int socket) {
        if (peer == 0) prte::prted::exit_watchdog::watch_master_socket(socket);
    });
    messenger.set_lost_peer_handler([](prte::runtime::Rank r) {
        // Before the errmgr acts on it (losing the master kills this node's processes): a request
        // relayed through the lost daemon is answered while its requester still listens.
        prte::pmix::daemons_lost({r});
        if (auto* m = prte::errmgr::base::module()) m->daemon_lost(r, prte::runtime::ProcState::comm_failed);
    });
    prte::prted::HandlerState handler_state;  // before the loop runs, gone at main's end, before the loop
    prte::prted::install_handlers(handler_state);
    prte::prted::start_heartbeat();
    rt.set_shutdown_handler([] {
        prte::prted::exit_watchdog::arm(prte::runtime::Runtime::instance().shutdown_reason());
        prte::prted::begin_shutdown();
    });
    rt.shutdown_on_signals();
    if (rt.settings().test_wedge_on_sigusr2) wedge_loop_on_sigusr2(rt.loop().base());

    // The whole topology travels: the master places processes on it (runtime/hw_topology.h).
    auto topology = prte::runtime::HwTopology::local();
    prte::plm::msg::DaemonReport report{options.rank, rt.identity().node_name, messenger.uri(),
                                        prte::runtime::local_topology(),
                                        topology ? prte::plm::msg::topology_xml_to_send(topology->xml()) : std::string(),
                                        prte::runtime::local_machine()};
    if (prte::Status st = messenger.send_direct(0, prte::rml::tag::daemon_report, prte::plm::msg::encode(report)); !st) {
        prte::output::error("daemon {}: cannot call home: {}", options.rank, st.message());
        rt.finalize();
        return 1;
    }
    rt.loop().run();

    int status = rt.exit_status();
    rt.finalize();
    prte::prted::exit_watchdog::stop();
    return status;
}
