#include "tools/prte/prte_options.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <filesystem>

#include <fmt/format.h>

#include "runtime/hostfile.h"
#include "tools/prun/forward_signals.h"
#include "tools/prun/mca_routing.h"
#include "util/strings.h"

namespace prte::tools {
namespace {

Status bad(const std::string& text) { return {Errc::bad_param, text}; }

bool is_directory(const std::string& path)
{
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// --max-vm-size N: the first N nodes of --host or --hostfile, as a host list (PRRTE: the number of
// daemons the DVM starts).
Status limit_vm_size(PrteOptions& o)
{
    std::vector<runtime::Node> nodes;
    if (!o.hosts.empty()) {
        if (Status st = runtime::parse_host_list(o.hosts, nodes); !st) return st;
    } else if (!o.hostfile.empty()) {
        if (Status st = runtime::read_hostfile(o.hostfile, nodes); !st) return st;
    } else {
        o.notes.push_back(fmt::format("--max-vm-size {}: without --host or --hostfile the DVM is this node alone",
                                      o.max_vm_size));
        return {};
    }
    if (nodes.size() <= static_cast<size_t>(o.max_vm_size)) return {};
    std::vector<std::string> kept;
    for (size_t i = 0; i < static_cast<size_t>(o.max_vm_size); ++i) {
        kept.push_back(nodes[i].slots_given ? fmt::format("{}:{}", nodes[i].name, nodes[i].slots) : nodes[i].name);
    }
    o.hosts = kept;
    o.hostfile.clear();
    return {};
}

// A --tune file's settings: prte's parameters for the DVM, PMIx's to prte's environment (its
// PMIx server reads them there), Open MPI's and -x's to every job (job defaults).
Status apply_tune_file(const std::string& path, char** envp, program::MCASettings& mca, runtime::JobDefaults& defaults)
{
    std::vector<prun::McaSetting> settings;
    std::vector<std::string> exports;
    if (Status st = prun::read_tune_file(path, settings, exports); !st) return st;
    for (const auto& [name, value] : settings) {
        prun::McaOwners owners = prun::mca_owners(name, prun::Personality::ompi, std::getenv("OMPI_MCA_PREFIXES"));
        if (owners.prte) mca.emplace_back(name, value);
        if (owners.pmix) setenv(("PMIX_MCA_" + name).c_str(), value.c_str(), 1);
        if (owners.open_mpi) defaults.env.push_back(fmt::format("OMPI_MCA_{}={}", name, value));
        if (owners.none()) {
            return bad(fmt::format("--tune {}: no one reads the parameter '{}' (not prte's, PMIx's or Open MPI's)", path,
                                   name));
        }
    }
    for (const std::string& word : exports) {
        if (Status st = runtime::add_exported_variable(word, envp, defaults); !st) return st;
    }
    return {};
}

}  // namespace

void add_prte_options(CLI::App& app, PrteOptions& o)
{
    app.add_flag("--daemonize", o.daemonize, "Return once the DVM is ready, leaving it running in the background");
    app.add_option("--report-uri", o.report_uri,
                   "Report the DVM's URI once it is ready: '-' stdout, '+' stderr, or a file name")
        ->type_name("-|+|FILE");
    app.add_option("--report-pid", o.report_pid,
                   "Report the DVM's pid (prte's, after --daemonize) once it is ready: '-' stdout, '+' stderr, "
                   "or a file name; prun --dvm pid:<n> and pterm --dvm pid:<n> take it")
        ->type_name("-|+|FILE");
    app.add_option("--host,-H", o.hosts, "Nodes of the DVM: name[:slots],... (default: this node)")->delimiter(',');
    app.add_option("--hostfile,--machinefile", o.hostfile, "A hostfile listing the DVM's nodes");
    app.add_option("--default-hostfile", o.default_hostfile,
                   "The hostfile to use when neither --host nor --hostfile is given (parameter "
                   "ras_hosts_default_hostfile)")
        ->type_name("FILE");
    app.add_option("--max-vm-size", o.max_vm_size, "Use only the first N nodes of --host or --hostfile")
        ->type_name("N");
    app.add_option("--log-file", o.log_file,
                   "Once the DVM is ready, write its messages (errors, warnings, verbose streams, the daemons' "
                   "lines, PMIx_Log) to this file, appending; SIGHUP reopens it. A daemonized DVM without it logs to "
                   "prte.log in its session directory (pterm --verbose says where)")
        ->type_name("PATH");
    app.add_flag("--debug-daemons-file", o.debug_daemons_file,
                 "Write each daemon's lines to a file of its own, prted.<rank>.<node>.log, in the log file's "
                 "directory (else the session directory), instead of into the DVM's log");
    app.add_flag("--debug-daemons,--leave-session-attached", o.accepted_flag, "Keep the daemons' output attached: each daemon's lines "
                                                              "reach the DVM's stderr (or its log), as they always do here");
    app.add_flag("-v,--verbose,--debug", o.verbose, "Say what the DVM is once it is ready: its nodes, namespace and URI");
    app.add_flag("--no-ready-msg", o.no_ready_msg, "Do not print \"DVM ready\" once the DVM is ready");
    app.add_flag("--system-server", o.system_server,
                 "Be this user's system-level DVM: tools find it with --dvm system, pterm --system-server-only");
    app.add_flag("--set-sid", o.set_sid, "Run in a session of its own (setsid), away from the terminal's signals");
    app.add_option("--keepalive", o.keepalive_fd, "Shut the DVM down when this file descriptor (a pipe) is closed")
        ->type_name("FD");
    app.add_option("--prefix", o.prefix, "Start the daemons as <DIR>/bin/prted (parameter plm_base_prted)")
        ->type_name("DIR");
    app.add_flag("--noprefix", o.noprefix, "Start the daemons as plm_base_prted names them, ignoring --prefix");
    app.add_option("--launch-agent", o.launch_agent,
                   "The command that starts a daemon on each node (default: prted; parameter plm_base_prted)")
        ->type_name("CMD");
    app.add_option("--pmix-prefix", o.accepted_value, "PMIx's installation prefix on the nodes: accepted; each daemon finds PMIx by its "
                                    "own run path")
        ->type_name("DIR");
    app.add_option("--tmpdir", o.tmpdir,
                   "The directory under which the session directory is made (TMPDIR for the DVM); tools find the "
                   "DVM with the same TMPDIR or with --dvm-uri")
        ->type_name("DIR");
    app.add_option("--pmixmca", o.pmix_mca, "Set PMIx parameter <name> to <value> for the DVM (PMIX_MCA_<name>)")
        ->expected(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("NAME VALUE");
    app.add_option("--tune", o.tune,
                   "Files of '-mca NAME VALUE' and '-x NAME[=VALUE]': prte's parameters set the DVM's, PMIx's its "
                   "PMIx server's, Open MPI's and -x reach every job")
        ->delimiter(',')
        ->type_name("FILE,...");
    app.add_option("--forward-signals", o.forward_signals,
                   "Signals to forward to every job: accepted (checked); prun forwards them, with its own "
                   "--forward-signals")
        ->type_name("LIST");
    app.add_flag("--allow-run-as-root", o.accepted_flag, "Accepted: prte never refuses to run as root");
    app.add_flag("--hetero-nodes,--uniform-nodes", o.accepted_flag,
                 "Accepted: every daemon reports its own node's hardware, whether the nodes differ or not");
    app.add_flag("--no-aggregate-help", o.accepted_flag, "Accepted: each message is printed as it comes (none are aggregated here)");
    app.add_flag("--show-progress", o.accepted_flag, "Accepted: the DVM prints no progress report here");
    app.add_option("--exec-agent", o.exec_agent, "Not supported: each daemon starts the processes itself (wrap the program on "
                                   "prun's command line instead)")
        ->type_name("CMD");
    app.add_option("--singleton", o.singleton, "Not supported: prte does not adopt a singleton MPI process (run it with prterun)")
        ->type_name("NSPACE");
    // DVM-wide job defaults.
    app.add_option("--timeout", o.timeout, "Every job's timeout in seconds unless it gives its own (0: none)")
        ->type_name("SECONDS");
    app.add_option("-x,--x", o.exports,
                   "Give every job's processes this variable: NAME (its value here), NAME=value or PREFIX*")
        ->type_name("NAME[=VALUE]");
    app.add_option("--runtime-options,--rtos", o.runtime_options,
                   "Every job's defaults: timeout=N, spawn-timeout=N, report-state-on-timeout, get-stack-traces, "
                   "recoverable, autorestart with max-restarts=N or continuous (restarts for a job that asks for "
                   "none of its own)")
        ->delimiter(',')
        ->type_name("LIST");
    app.add_option("--display", o.display, "Reports for every job: map, allocation, bind, topo, cpus")
        ->delimiter(',')
        ->type_name("LIST");
    app.add_flag("-V,--version", o.version, "Show the version");
}

Status finish_prte_options(PrteOptions& o, char** envp, program::MCASettings& mca, runtime::JobDefaults& defaults)
{
    // Options that cannot apply here are refused naming why and what to use.
    if (!o.exec_agent.empty()) {
        return bad("--exec-agent: not supported: each daemon starts the job's processes itself; wrap the program on "
                   "prun's command line instead (prun -n 4 wrapper ./app)");
    }
    if (!o.singleton.empty()) {
        return bad("--singleton: not supported: prte does not adopt a singleton MPI process; start the program with "
                   "prterun or prun");
    }
    if (o.noprefix) o.prefix.clear();
    if (!o.launch_agent.empty()) {
        mca.emplace_back("plm_base_prted", o.launch_agent);
    } else if (!o.prefix.empty()) {
        if (!is_directory(o.prefix)) return bad(fmt::format("--prefix {}: not a directory", o.prefix));
        mca.emplace_back("plm_base_prted", (std::filesystem::path(o.prefix) / "bin" / "prted").string());
    }
    if (!o.default_hostfile.empty()) {
        if (access(o.default_hostfile.c_str(), R_OK) != 0) {
            return bad(fmt::format("--default-hostfile {}: cannot read the file", o.default_hostfile));
        }
        mca.emplace_back("ras_hosts_default_hostfile", o.default_hostfile);
    }
    if (o.max_vm_size < 0) return bad(fmt::format("--max-vm-size {}: expected a positive number", o.max_vm_size));
    if (o.max_vm_size > 0) {
        if (Status st = limit_vm_size(o); !st) return bad(fmt::format("--max-vm-size: {}", st.message()));
    }
    if (o.keepalive_fd >= 0 && fcntl(o.keepalive_fd, F_GETFD) < 0) {
        return bad(fmt::format("--keepalive {}: not an open file descriptor", o.keepalive_fd));
    }
    if (!o.tmpdir.empty()) {
        if (!is_directory(o.tmpdir)) return bad(fmt::format("--tmpdir {}: not a directory", o.tmpdir));
        setenv("TMPDIR", o.tmpdir.c_str(), 1);
    }
    for (size_t i = 0; i + 1 < o.pmix_mca.size(); i += 2) {
        setenv(("PMIX_MCA_" + o.pmix_mca[i]).c_str(), o.pmix_mca[i + 1].c_str(), 1);
    }
    for (const std::string& file : o.tune) {
        if (Status st = apply_tune_file(file, envp, mca, defaults); !st) return st;
    }
    if (!o.forward_signals.empty()) {
        std::vector<int> signals;
        if (Status st = prun::parse_forward_signals(o.forward_signals, signals); !st) return st;
        o.notes.push_back(fmt::format("--forward-signals {}: prun forwards signals to its job; give the list to prun "
                                      "--forward-signals",
                                      o.forward_signals));
    }
    if (!o.timeout.empty()) {
        std::optional<int64_t> t = util::parse_int(o.timeout);
        if (!t || *t < 0 || *t > INT32_MAX) return bad(fmt::format("--timeout {}: expected a number of seconds", o.timeout));
        defaults.timeout_seconds = static_cast<int>(*t);
    }
    for (const std::string& word : o.exports) {
        if (Status st = runtime::add_exported_variable(word, envp, defaults); !st) return st;
    }
    // As one list: autorestart needs max-restarts or continuous beside it.
    if (!o.runtime_options.empty()) {
        if (Status st = runtime::parse_runtime_defaults(util::join(o.runtime_options, ","), defaults); !st) return st;
    }
    for (const std::string& word : o.display) {
        if (Status st = runtime::parse_display_defaults(word, defaults); !st) return st;
    }
    return {};
}

}  // namespace prte::tools
