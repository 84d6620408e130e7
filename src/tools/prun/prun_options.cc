#include "tools/prun/prun_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "runtime/placement_spec.h"
#include "tools/prun/appfile.h"
#include "tools/prun/rare_options.h"
#include "tools/prun/runtime_options.h"
#include "util/strings.h"

namespace prte::prun {
namespace {

// Options that take values, by every spelling, with how many words they take. Anything else that
// looks like an option takes none. Used only to find where a context's program starts.
const std::map<std::string, int>& option_arity()
{
    static const std::map<std::string, int> arity = {
        {"-n", 1},        {"--np", 1},     {"-c", 1},       {"--map-by", 1}, {"--bind-to", 1}, {"--host", 1},
        {"--rank-by", 1}, {"--rankfile", 1}, {"--cpus-per-rank", 1}, {"--cpus-per-proc", 1}, {"--npersocket", 1},
        {"-H", 1},        {"--hostfile", 1}, {"-x", 1},     {"--wdir", 1},    {"--output", 1},
        {"--timeout", 1}, {"--dvm-uri", 1}, {"--dvm", 1},   {"--stdin", 1},   {"--prtemca", 2},
        {"--mca", 2},     {"--add-host", 1}, {"--add-hostfile", 1}, {"-N", 1}, {"--npernode", 1},
        {"--display", 1}, {"--pmixmca", 2}, {"--output-filename", 1}, {"--mpi", 1},
        {"--forward-signals", 1}, {"--spawn-timeout", 1},
        {"--gmca", 2},    {"--omca", 2},    {"--am", 1},    {"--tune", 1},    {"--personality", 1},
        {"--n", 1},       {"--wd", 1},      {"--machinefile", 1}, {"--mapby", 1}, {"--rankby", 1}, {"--bindto", 1},
        {"--ppr", 1},     {"--cpu-set", 1}, {"--cpu-list", 1}, {"--path", 1},  {"--app", 1},
        {"--set-env", 1}, {"--unset-env", 1}, {"--prepend-env", 2}, {"--append-env", 2},
        {"--runtime-options", 1}, {"--rtos", 1}, {"--max-restarts", 1}, {"--report-pid", 1}, {"--report-uri", 1},
        {"--pid", 1},     {"--namespace", 1}, {"--wait-to-connect", 1}, {"--num-connect-retries", 1},
        {"--preload-files", 1}, {"--xterm", 1},
    };
    return arity;
}

// PRRTE also accepts these long options with a single dash ("-np 4", "-host a,b").
const std::set<std::string>& single_dash_long_options()
{
    static const std::set<std::string> names = {"np",      "host",   "hostfile", "wdir",     "map-by",
                                                "bind-to", "output", "timeout",  "prtemca",  "mca",
                                                "dvm-uri", "dvm",    "stdin",    "verbose", "add-host",
                                                "add-hostfile", "npernode", "pernode", "display", "pmixmca",
                                                "rank-by", "rankfile", "nolocal", "do-not-launch", "cpus-per-rank",
                                                "cpus-per-proc", "use-hwthread-cpus", "bind-to-core", "bynode",
                                                "byslot", "npersocket",
                                                "report-bindings", "tag-output", "timestamp-output",
                                                "merge-stderr-to-stdout", "display-map", "display-allocation",
                                                "enable-recovery", "disable-recovery", "output-filename", "mpi",
                                                "forward-signals", "gmca", "omca", "am", "tune", "personality",
                                                "spawn-timeout", "report-state-on-timeout", "get-stack-traces",
                                                "wd", "machinefile", "app", "set-env", "unset-env", "prepend-env",
                                                "append-env", "fwd-environment", "path", "oversubscribe",
                                                "nooversubscribe", "allow-run-as-root", "mapby", "rankby", "bindto",
                                                "ppr", "bycore", "cpu-set", "cpu-list", "runtime-options", "rtos",
                                                "max-restarts", "continuous", "xml", "report-pid", "report-uri", "pid",
                                                "namespace", "preload-files", "preload-binary", "xterm", "quiet",
                                                "system-server-first", "system-server-only", "wait-to-connect",
                                                "num-connect-retries", "parseable", "parsable"};
    return names;
}

// How many value words follow `option` (a spelling of prun's, or of rare_options.h's table).
int value_words(const std::string& option)
{
    auto it = option_arity().find(option);
    if (it != option_arity().end()) return it->second;
    const RareOption* rare = find_rare_option(option);
    return rare ? rare->words : 0;
}

// Rewrites "-np" to "--np" (and the like) in the option part of each context, leaving the
// programs' own arguments alone; the rarer names of rare_options.h become what they stand for
// (an alias), a note in `notes`, or the refusal.
Status normalize(const std::vector<std::string>& args, std::vector<std::string>& out, std::vector<std::string>& notes)
{
    out.clear();
    bool in_program = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string t = args[i];
        if (t == ":") {
            in_program = false;
            out.push_back(t);
            continue;
        }
        if (in_program) {
            out.push_back(t);
            continue;
        }
        if (t == "--") {  // what follows is the program
            out.push_back(t);
            in_program = true;
            continue;
        }
        if (t.size() > 2 && t[0] == '-' && t[1] != '-') {
            std::string name = t.substr(1), value;
            size_t eq = name.find('=');
            if (eq != std::string::npos) {
                value = name.substr(eq);
                name = name.substr(0, eq);
            }
            if (single_dash_long_options().count(name) || find_rare_option("--" + name)) t = "--" + name + value;
            if (name == "rf") t = "--rankfile" + value;  // Open MPI's short form
        }
        if (t.size() > 1 && t[0] == '-') {
            size_t eq = t.find('=');
            if (const RareOption* rare = find_rare_option(t.substr(0, eq))) {
                std::vector<std::string> values;
                if (eq != std::string::npos) values.push_back(t.substr(eq + 1));
                while (static_cast<int>(values.size()) < rare->words && i + 1 < args.size()) values.push_back(args[++i]);
                if (static_cast<int>(values.size()) < rare->words) {
                    return {Errc::bad_param, fmt::format("{}: expected {} value{}", t, rare->words, rare->words > 1 ? "s" : "")};
                }
                if (Status st = apply_rare_option(*rare, t.substr(0, eq), values, out, notes); !st) return st;
                continue;
            }
            out.push_back(t);
            if (eq != std::string::npos) continue;
            for (int k = value_words(t); k > 0 && i + 1 < args.size(); --k) out.push_back(args[++i]);
            continue;
        }
        out.push_back(t);
        in_program = true;  // the first word that is not an option is the program
    }
    return {};
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// What one context's command line fills in; job-level options land in the request directly.
struct ContextTarget {
    AppContext app;
    std::string map_by;  // the job's in the first context, else the app's own (finish_context)
    std::vector<std::string> prte_mca_words;  // --prtemca
    std::vector<std::string> mca_words;       // --mca, --gmca: routed by name
    std::vector<std::string> omca_words;      // --omca
    std::vector<std::string> param_files;     // -am FILE[,FILE]
    std::vector<std::string> tune_files;      // --tune FILE[,FILE]
    std::string personality;                  // --personality
    std::vector<std::string> output_values;
    std::string output_filename;  // --output-filename DIR[:nocopy,nojobid]
    std::string stdin_value;
    std::string timeout_text;
    std::string forward_signals_text;
    std::string spawn_timeout_text;
    std::string queue_timeout_text;  // --queue-timeout
    std::string npernode_text;  // -N / --npernode
    bool pernode = false;
    std::vector<std::string> pmix_mca_words;
    std::vector<std::string> display_values;
    // PRRTE's older spellings, each accepted with a note naming the current one.
    bool tag_output = false, timestamp_output = false, merge_stderr_to_stdout = false;
    bool display_map = false, display_allocation = false;
    // PRRTE's older placement spellings (apply_old_placement), each folded into --map-by or
    // --bind-to with a note.
    std::string rankfile, cpus_per_rank, npersocket, ppr, cpu_set;
    bool oversubscribe = false, nooversubscribe = false, bycore = false;
    std::vector<std::string> tune_exports;     // -x words of --tune files
    std::vector<std::string> runtime_options;  // --runtime-options / --rtos
    std::string max_restarts, xterm, report_uri, pid, nspace, preload_files, wait_to_connect, num_connect_retries;
    bool continuous = false, xml = false, allow_run_as_root = false, preload_binary = false;
    bool system_server_first = false, system_server_only = false, parseable = false;
    // rare_options.h's names, rewritten before parsing: the sinks CLI11 needs for --help.
    std::vector<std::string> rare_words;
    bool rare_flag = false;
    std::string appfile;  // --app, read before parsing (expand_appfile): seen here only where it may not be
    // The environment options' words, put in command-line order by collect_environment.
    std::vector<std::string> env_words;
    bool nolocal = false, do_not_launch = false, use_hwthread_cpus = false, bind_to_core = false, bynode = false,
         byslot = false;
};

// An older spelling and what it stands for now.
struct OldSpelling {
    const char* option;
    bool ContextTarget::*flag;
    const char* current;
};
const OldSpelling kOldSpellings[] = {
    {"--tag-output", &ContextTarget::tag_output, "--output tag"},
    {"--timestamp-output", &ContextTarget::timestamp_output, "--output timestamp"},
    {"--merge-stderr-to-stdout", &ContextTarget::merge_stderr_to_stdout, "--output merge-stderr-to-stdout"},
    {"--display-map", &ContextTarget::display_map, "--display map"},
    {"--display-allocation", &ContextTarget::display_allocation, "--display allocation"},
    {"--xml", &ContextTarget::xml, "--output xml"},
};


// The environment options (environment_options.h). Their words all go to one sink: the order
// that matters is recovered from CLI11's parse order (collect_environment).
const char* const kEnvironmentOptions[] = {"-x", "--set-env", "--unset-env", "--prepend-env", "--append-env"};

void add_environment_options(CLI::App& cli, ContextTarget& t)
{
    auto each = [](CLI::Option* o, int words, const char* type) {
        o->expected(words)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->type_name(type);
    };
    // Distinct sinks are needed only for CLI11's bookkeeping; the words are read back in order.
    each(cli.add_option("-x", t.env_words,
                        "Export an environment variable to the job: NAME (its value here), NAME=value, or PREFIX* "
                        "(every variable here starting with PREFIX); repeatable"),
         1, "VAR[=value]|PREFIX*");
    each(cli.add_option("--set-env", t.env_words, "Set a variable in the job's environment: NAME=value (as -x NAME=value)"),
         1, "NAME=value");
    each(cli.add_option("--unset-env", t.env_words,
                        "Remove a variable from the job's environment: NAME, or PREFIX* for every variable starting "
                        "with PREFIX"),
         1, "NAME|PREFIX*");
    each(cli.add_option("--prepend-env", t.env_words,
                        "Put VALUE before the variable's value on the process's node, joined by c: "
                        "--prepend-env PATH[:] /opt/bin"),
         2, "NAME[c] VALUE");
    each(cli.add_option("--append-env", t.env_words,
                        "Put VALUE after the variable's value on the process's node, joined by c: "
                        "--append-env LD_LIBRARY_PATH[:] /opt/lib"),
         2, "NAME[c] VALUE");
}

// The environment options in the order given (PRRTE applies them in that order), after the -x
// words of any --tune file.
Status collect_environment(const CLI::App& cli, ContextTarget& t)
{
    for (const std::string& x : t.tune_exports) {
        EnvOption o;
        if (Status st = read_env_option("-x", {x}, o); !st) return st;
        t.app.environment.push_back(o);
    }
    std::map<const CLI::Option*, size_t> taken;
    std::map<const CLI::Option*, std::string> name;
    for (const char* option : kEnvironmentOptions) name[cli.get_option(option)] = option;
    const CLI::Option* pending = nullptr;
    std::vector<std::string> pending_words;
    for (const CLI::Option* o : cli.parse_order()) {
        auto it = name.find(o);
        if (it == name.end()) continue;
        const std::vector<std::string>& results = o->results();
        size_t& k = taken[o];
        if (k >= results.size()) continue;
        pending = o;
        pending_words.push_back(results[k++]);
        size_t needed = (it->second == "--prepend-env" || it->second == "--append-env") ? 2 : 1;
        if (pending_words.size() < needed) continue;
        EnvOption env;
        if (Status st = read_env_option(it->second, pending_words, env); !st) return st;
        t.app.environment.push_back(env);
        pending_words.clear();
        pending = nullptr;
    }
    if (pending) return {Errc::bad_param, fmt::format("{}: expected NAME[c] and a value", name[pending])};
    return {};
}

// --runtime-options and the options PRRTE spells beside it.
void add_runtime_options(CLI::App& cli, ContextTarget& t, Request& r)
{
    cli.add_option("--runtime-options,--rtos", t.runtime_options,
                   std::string("How the job behaves at run time, a comma list (each word may be shortened, ")
                       + "=value where it takes one): " + runtime_option_words())
        ->type_name("LIST")
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cli.add_option("--max-restarts", t.max_restarts,
                   "Restart a process that fails (exits non-zero or is killed) up to N times, as the same rank on "
                   "its node; its next failure ends the job with its status")
        ->type_name("N");
    cli.add_flag("--continuous", t.continuous,
                 "Restart a process that fails without limit (or up to --max-restarts), and let the job run on "
                 "without one that may not be restarted again");
    cli.add_flag("--fwd-environment", r.forward_environment,
                 "Give the job all of prun's environment (but the variables that describe prun's own process to "
                 "PMIx, Open MPI or prte), before -x and the like");
}

// Choosing the DVM, and prun's own reports.
void add_connection_options(CLI::App& cli, ContextTarget& t, Request& r)
{
    cli.add_option("--pid", t.pid, "The DVM to use: the pid of its prte (as --dvm pid:<n>)")->type_name("PID");
    cli.add_option("--namespace", t.nspace, "The DVM to use: its namespace (as --dvm ns:<namespace>)")->type_name("NSPACE");
    cli.add_flag("--system-server-first", t.system_server_first,
                 "The DVM to use: the one started with prte --system-server if there is one, else this user's "
                 "only DVM (as --dvm system-first)");
    cli.add_flag("--system-server-only", t.system_server_only,
                 "The DVM to use: only the one started with prte --system-server (as --dvm system)");
    cli.add_option("--wait-to-connect", t.wait_to_connect,
                   "Seconds between tries to find and reach the DVM (with --num-connect-retries; default 1)")
        ->type_name("SECONDS");
    cli.add_option("--num-connect-retries", t.num_connect_retries,
                   "Try this many more times to find and reach the DVM, --wait-to-connect seconds apart")
        ->type_name("N");
    cli.add_option("--report-pid", r.report_pid, "Report prun's pid: - (stdout), + (stderr) or a file")->type_name("-|+|FILE");
    cli.add_option("--report-uri", t.report_uri, "Refused: prun runs no PMIx server of its own (prte --report-uri gives the DVM's)")
        ->type_name("-|+|FILE");
}

// The heading of the help's last part.
constexpr const char* kOlderGroup = "Older spellings, and options only accepted or refused with a reason";

// Options PRRTE or mpirun documents that change nothing here, or cannot apply: accepted with a
// note, or refused with the reason (finish_accepted); and the preload options, which prun reads
// once the command line is whole (tools/prun/preload.h).
void add_accepted_options(CLI::App& cli, ContextTarget& t)
{
    cli.add_flag("--allow-run-as-root", t.allow_run_as_root, "Accepted: prte never refuses to run as root");
    cli.add_option("--preload-files", t.preload_files,
                   "Copy these files (comma-separated, read here) into each process's working directory on its node "
                   "before it starts; removed when the job ends")
        ->type_name("FILES");
    cli.add_flag("-s,--preload-binary", t.preload_binary,
                 "Copy the program (read here) to each node's session directory and run it from there");
    cli.add_option("--xterm", t.xterm, "Refused: it needs an X display; run 'prun ... xterm -e <program>' instead")
        ->type_name("RANKS");
    cli.add_flag("-p,--parseable,--parsable", t.parseable, "Accepted: the reports are already one line per item");
}

// rare_options.h's table, known to CLI11 for --help only: prun rewrites them before parsing.
void add_rare_options(CLI::App& cli, ContextTarget& t)
{
    for (const RareOption& o : rare_options()) {
        CLI::Option* option = o.words == 0 ? cli.add_flag(o.names, t.rare_flag, rare_option_help(o))
                                           : cli.add_option(o.names, t.rare_words, rare_option_help(o))
                                                 ->expected(o.words)
                                                 ->type_name(o.words == 2 ? "NAME VALUE" : "VALUE");
        option->group(kOlderGroup);
    }
}

void add_options(CLI::App& cli, ContextTarget& t, Request& r)
{
    auto take_each = [](CLI::Option* o) {
        return o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };
    cli.add_option("-n,-c,--np,--n", t.app.np, "Number of processes to run")->type_name("N");
    add_environment_options(cli, t);
    take_each(cli.add_option("--host,-H", t.app.hosts, "Nodes to run on: h1,h2:2 (name[:slots],...)"))
        ->type_name("LIST");
    cli.add_option("--hostfile,--machinefile", t.app.hostfile, "A hostfile naming the nodes to run on")->type_name("FILE");
    take_each(cli.add_option("--add-host", t.app.add_hosts,
                             "Grow the DVM onto these nodes first (an elastic DVM): h1,h2:2 (name[:slots],...)"))
        ->type_name("LIST");
    cli.add_option("--add-hostfile", t.app.add_hostfile, "Grow the DVM onto the nodes of this hostfile first")
        ->type_name("FILE");
    cli.add_option("--wdir,--wd", t.app.wdir, "Working directory of the processes (default: prun's)")->type_name("DIR");
    cli.add_option("--path", t.app.path, "The directory the program is found in (a program without '/' is taken from it)")
        ->type_name("DIR");
    cli.add_option("--app", t.appfile,
                   "Run the app contexts of FILE, one a line, each with the options of this command line (MPMD); "
                   "lines starting with '#' are comments")
        ->type_name("FILE");

    cli.add_option("--map-by,--mapby", t.map_by,
                   fmt::format("Where processes go (default core): {}; qualifiers after ':' {}",
                               runtime::kMapPolicies, runtime::kMapQualifiers))
        ->type_name("POLICY[:QUALIFIER...]");
    cli.add_option("--rank-by,--rankby", r.rank_by,
                   fmt::format("How ranks are numbered (default: as mapped): {}", runtime::kRankPolicies))
        ->type_name("POLICY[:SPAN]");
    cli.add_option("--bind-to,--bindto", r.bind_to,
                   fmt::format("What each process is bound to (default: its own CPU): {}; qualifiers after ':' {}",
                               runtime::kBindLevels, runtime::kBindQualifiers))
        ->type_name("LEVEL[:QUALIFIER...]");
    take_each(cli.add_option("--output", t.output_values,
                             "Output format, a comma list of: tag ([job,rank]<stdout>: ), tag-fullname (the "
                             "namespace), tag-detailed ([job,rank][host:pid]<stdout>: ), rank ([rank]<stdout>: ), timestamp, xml (each line "
                             "an element <stdout rank=\"N\">, inside <mpirun>), merge-stderr-to-stdout, raw; and to files: dir=DIR (DIR/<job>/rank.N/stdout, "
                             "stderr) or file=PATH (PATH.<job>.N), with :nocopy (not also to the terminal) "
                             "and :nojobid (dir= only)"))
        ->type_name("LIST");
    cli.add_option("--output-filename", t.output_filename,
                   "Each rank's output into DIR/<job>/rank.N/stdout and stderr (Open MPI's and PRRTE's older "
                   "spelling of --output dir=DIR); DIR:nocopy,nojobid as there")
        ->type_name("DIR");
    cli.add_option("--timeout", t.timeout_text,
                   "Terminate the job after this many seconds, exit status 110 (ETIMEDOUT, as mpirun's); "
                   "MPIEXEC_TIMEOUT in the environment sets it when this is not given")
        ->type_name("SECONDS");
    cli.add_flag("--report-state-on-timeout", r.report_state_on_timeout,
                 "When --timeout expires, print on stderr, before the job is ended, one line per process: "
                 "'prte: job <ns> rank <r>: node <node>, pid <pid>, state <STATE>'");
    cli.add_flag("--get-stack-traces", r.stack_traces_on_timeout,
                 "When --timeout expires, print on stderr, before the job is ended, each live process's stack, "
                 "taken by its node's daemon with gdb (prte_stack_trace_debugger); a node without gdb says so in "
                 "one line");
    cli.add_option("--spawn-timeout", t.spawn_timeout_text,
                   "Fail the job, exit status 110, if its processes have not all started within this many seconds "
                   "of its submission")
        ->type_name("SECONDS");
    cli.add_flag("--queue", r.queue,
                 "When the DVM's free slots are held by other jobs, wait in its queue until they end instead of "
                 "failing (a job that could never fit the DVM still fails at once); pstat shows the queue");
    cli.add_option("--queue-timeout", t.queue_timeout_text,
                   "With --queue (implied): end the job, exit status 1, if it is still queued after this many "
                   "seconds; --timeout counts from its launch")
        ->type_name("SECONDS");
    cli.add_flag("--enable-recovery", r.recoverable,
                 "A process that dies or exits non-zero does not end the job: the others carry on and are told "
                 "(PMIx event); the job's status is the first failure's");
    cli.add_flag_callback("--disable-recovery", [&r] { r.recoverable = false; },
                          "A process's failure ends the job (the default)");
    cli.add_option("--mpi", r.mpi,
                   "What each process is given to find its peers: pmix (PMIx only), pmi1 or pmi2 (MPICH's PMI "
                   "wire protocol only), none; default: PMIx and PMI both, so Open MPI and MPICH programs run "
                   "as one job")
        ->type_name("pmix|pmi1|pmi2|none");
    cli.add_option("--forward-signals", t.forward_signals_text,
                   "The signals prun passes on to every process of the job, replacing the default set (TSTP, "
                   "USR1, USR2, ABRT, ALRM, CONT): a comma list of names (USR1 or SIGUSR1) or numbers, or none. "
                   "TSTP stops the job and CONT continues it, prun itself running on; INT, TERM and HUP always "
                   "end the job")
        ->type_name("LIST|none");
    cli.add_option("--stdin", t.stdin_value, "Which rank gets prun's stdin: a rank (default 0), all, or none")
        ->type_name("RANK|all|none");
    cli.add_option("--dvm-uri", r.dvm_uri, "The DVM to use: its URI, or file:<path> holding it (prte --report-uri)")
        ->type_name("URI");
    cli.add_option("--dvm", r.dvm, "The DVM to use: pid:<n>, file:<path>, uri:<uri> or ns:<namespace>")
        ->type_name("SELECTOR");
    cli.add_option("-N,--npernode", t.npernode_text, "Run N processes on each node (--map-by ppr:N:node)")
        ->type_name("N");
    cli.add_flag("--pernode", t.pernode, "Run one process on each node (--map-by ppr:1:node)");
    take_each(cli.add_option("--display", t.display_values,
                             "What the DVM shows, a comma list of: map (where each rank runs), allocation (the "
                             "nodes and their slots), topo[=host;host] (each node's hardware) and cpus[=host;host] "
                             "(each node's available CPUs, by package), on stdout before "
                             "the job's output; bind (as --report-bindings); :physical after any of them shows "
                             "bindings by the OS's ids"))
        ->type_name("LIST");
    cli.add_flag("--report-bindings", r.reports.bindings,
                 "Each process reports its binding, one line per rank on its stderr, as it starts");
    auto name_value = [](CLI::Option* o) {
        return o->expected(2)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->type_name(
            "NAME VALUE");
    };
    name_value(cli.add_option("--mca,--gmca", t.mca_words,
                              "Set a parameter for the job's processes: <name> <value>, given to Open MPI "
                              "(OMPI_MCA_<name>), PMIx (PMIX_MCA_) or prte (PRTE_MCA_) by its name's prefix "
                              "(btl_ is Open MPI's, ptl_ PMIx's, plm_ prte's); see --personality"));
    name_value(cli.add_option("--prtemca", t.prte_mca_words,
                              "Set a prte parameter for the job: <name> <value> (PRTE_MCA_<name> in its processes' "
                              "environment)"));
    name_value(cli.add_option("--omca", t.omca_words,
                              "Set an Open MPI parameter for the job's processes: <name> <value> (OMPI_MCA_<name>), "
                              "whatever its prefix"));
    take_each(cli.add_option("--am", t.param_files,
                             "Open MPI's parameter files (-am): 'name = value' lines, each routed as --mca"))
        ->type_name("FILE[,FILE]");
    take_each(cli.add_option("--tune", t.tune_files,
                             "Tune files: words of '-mca NAME VALUE' and '-x NAME[=VALUE]', as on the command line"))
        ->type_name("FILE[,FILE]");
    cli.add_option("--personality", t.personality,
                   "How --mca names are read: ompi (default: by prefix, to Open MPI, PMIx or prte) or prte (all "
                   "to prte, a PMIx framework's to PMIx)")
        ->type_name("ompi|prte");
    cli.add_option("--pmixmca", t.pmix_mca_words,
                   "Set a PMIx parameter for the job's processes: <name> <value> (PMIX_MCA_<name> in their "
                   "environment)")
        ->expected(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("NAME VALUE");
    for (const OldSpelling& old : kOldSpellings) {
        cli.add_flag(old.option, t.*old.flag, fmt::format("PRRTE's older spelling of {}", old.current));
    }
    cli.add_option("--rankfile", t.rankfile, "PRRTE's older spelling of --map-by rankfile:FILE=<file>")->type_name("FILE");
    cli.add_flag("--nolocal", t.nolocal, "PRRTE's older spelling of --map-by :NOLOCAL");
    cli.add_flag("--do-not-launch", t.do_not_launch, "PRRTE's older spelling of --map-by :DONOTLAUNCH");
    cli.add_option("--cpus-per-rank,--cpus-per-proc", t.cpus_per_rank, "PRRTE's older spelling of --map-by :PE=<n>")
        ->type_name("N");
    cli.add_flag("--use-hwthread-cpus", t.use_hwthread_cpus, "PRRTE's older spelling of --map-by :HWTCPUS");
    cli.add_flag("--bind-to-core", t.bind_to_core, "PRRTE's older spelling of --bind-to core");
    cli.add_flag("--bynode", t.bynode, "PRRTE's older spelling of --map-by node");
    cli.add_flag("--byslot", t.byslot, "PRRTE's older spelling of --map-by slot");
    cli.add_option("--npersocket", t.npersocket, "PRRTE's older spelling of --map-by ppr:<n>:package")->type_name("N");
    cli.add_option("--ppr", t.ppr, "PRRTE's older spelling of --map-by ppr:N:RESOURCE")->type_name("N:RESOURCE");
    cli.add_flag("--bycore", t.bycore, "PRRTE's older spelling of --map-by core");
    cli.add_option("--cpu-set,--cpu-list", t.cpu_set, "PRRTE's older spelling of --map-by pe-list=LIST")->type_name("LIST");
    cli.add_flag("--oversubscribe", t.oversubscribe, "PRRTE's older spelling of --map-by :OVERSUBSCRIBE");
    cli.add_flag("--nooversubscribe", t.nooversubscribe, "PRRTE's older spelling of --map-by :NOOVERSUBSCRIBE");
    add_runtime_options(cli, t, r);
    add_connection_options(cli, t, r);
    add_accepted_options(cli, t);
    add_rare_options(cli, t);
    cli.add_flag("-v,--verbose", r.verbose, "Say what prun does (DVM chosen, job namespace)");
    cli.add_flag("-q,--quiet", r.quiet, "Print no notes (the 'prun: note:' lines)");
    cli.add_flag("-V,--version", r.version, "Show the version");
    cli.set_help_flag("-h,--help", "Show this help; --help OPTION shows that option's page");
    cli.prefix_command();  // stop at the program: its own options are its own
    // The older spellings and the options that are only accepted or refused go last, under a
    // heading of their own, so that the options that do something here come first.
    for (CLI::Option* o : cli.get_options()) {
        const std::string& d = o->get_description();
        if (d.rfind("PRRTE's older spelling", 0) == 0 || d.rfind("Accepted", 0) == 0 || d.rfind("Refused", 0) == 0) {
            o->group(kOlderGroup);
        }
    }
}

void add_note(Request& r, std::string note)
{
    if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(std::move(note));
}

// -N n, --npernode n and --pernode are --map-by ppr:n:node, as PRRTE translates them.
Status apply_per_node(const ContextTarget& t, std::string& map_by)
{
    std::string option, policy;
    if (!t.npernode_text.empty()) {
        auto n = util::parse_int(t.npernode_text);
        if (!n || *n <= 0 || *n > 1000000) {
            return {Errc::bad_param,
                    fmt::format("-N/--npernode {}: expected a positive number of processes per node", t.npernode_text)};
        }
        option = "-N " + t.npernode_text;
        policy = fmt::format("ppr:{}:node", *n);
    }
    if (t.pernode) {
        if (!option.empty()) return {Errc::bad_param, fmt::format("--pernode and {} cannot be combined", option)};
        option = "--pernode";
        policy = "ppr:1:node";
    }
    if (option.empty()) return {};
    if (!map_by.empty() && map_by != policy) {
        return {Errc::bad_param,
                fmt::format("{} and --map-by {} cannot be combined ({} is --map-by {})", option, map_by, option, policy)};
    }
    map_by = policy;
    return {};
}

// PRRTE's older placement options, folded into --map-by / --bind-to as PRRTE does, each with a
// note naming the current spelling, into `map_by` (the job's or this app's). A policy they set must
// not contradict an explicit --map-by.
Status apply_old_placement(const ContextTarget& t, std::string& map_by, Request& r)
{
    auto note = [&r](const std::string& old, const std::string& now) {
        add_note(r, fmt::format("{} is PRRTE's older spelling of {}: accepted, but use {}", old, now, now));
    };
    auto set_policy = [&map_by, &note](const std::string& old, const std::string& policy) -> Status {
        std::string head = map_by.substr(0, map_by.find(':'));
        if (!head.empty() && lower(head) != lower(policy.substr(0, policy.find(':')))) {
            return {Errc::bad_param, fmt::format("{} and --map-by {} cannot be combined ({} is --map-by {})", old,
                                                 map_by, old, policy)};
        }
        note(old, "--map-by " + policy);
        map_by = head.empty() ? policy + map_by : map_by;
        return {};
    };
    auto add_qualifier = [&map_by, &note](const std::string& old, const std::string& qualifier) {
        note(old, "--map-by :" + qualifier);
        map_by += ":" + qualifier;
    };
    if (!t.rankfile.empty()) {
        if (Status st = set_policy("--rankfile " + t.rankfile, "rankfile"); !st) return st;
        map_by += ":FILE=" + t.rankfile;
    }
    if (t.bynode) {
        if (Status st = set_policy("--bynode", "node"); !st) return st;
    }
    if (t.byslot) {
        if (Status st = set_policy("--byslot", "slot"); !st) return st;
    }
    if (!t.npersocket.empty()) {
        auto n = util::parse_int(t.npersocket);
        if (!n || *n <= 0) return {Errc::bad_param, fmt::format("--npersocket {}: expected a positive number", t.npersocket)};
        if (Status st = set_policy("--npersocket " + t.npersocket, fmt::format("ppr:{}:package", *n)); !st) return st;
    }
    if (!t.ppr.empty()) {
        if (Status st = set_policy("--ppr " + t.ppr, "ppr:" + t.ppr); !st) return st;
    }
    if (t.bycore) {
        if (Status st = set_policy("--bycore", "core"); !st) return st;
    }
    if (!t.cpu_set.empty()) {
        if (Status st = set_policy("--cpu-set " + t.cpu_set, "pe-list=" + t.cpu_set); !st) return st;
    }
    if (t.oversubscribe) add_qualifier("--oversubscribe", "OVERSUBSCRIBE");
    if (t.nooversubscribe) add_qualifier("--nooversubscribe", "NOOVERSUBSCRIBE");
    if (t.nolocal) add_qualifier("--nolocal", "NOLOCAL");
    if (t.do_not_launch) add_qualifier("--do-not-launch", "DONOTLAUNCH");
    if (t.use_hwthread_cpus) add_qualifier("--use-hwthread-cpus", "HWTCPUS");
    if (!t.cpus_per_rank.empty()) {
        auto n = util::parse_int(t.cpus_per_rank);
        if (!n || *n <= 0) {
            return {Errc::bad_param, fmt::format("--cpus-per-rank {}: expected a positive number of CPUs", t.cpus_per_rank)};
        }
        add_qualifier("--cpus-per-rank " + t.cpus_per_rank, fmt::format("PE={}", *n));
    }
    if (t.bind_to_core) {
        if (!r.bind_to.empty() && lower(r.bind_to.substr(0, r.bind_to.find(':'))) != "core") {
            return {Errc::bad_param, fmt::format("--bind-to-core and --bind-to {} cannot be combined", r.bind_to)};
        }
        note("--bind-to-core", "--bind-to core");
        if (r.bind_to.empty()) r.bind_to = "core";
    }
    return {};
}

// Pairs of NAME VALUE words of `option`, each name a parameter name.
Status take_pairs(const char* option, const std::vector<std::string>& words,
                  std::vector<std::pair<std::string, std::string>>& out)
{
    if (words.size() % 2 != 0) return {Errc::bad_param, fmt::format("{} {}: expected a name and a value", option, words.back())};
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
        const std::string& name = words[i];
        if (name.empty() || name.find_first_of("= \t") != std::string::npos) {
            return {Errc::bad_param, fmt::format("{} '{}': not a parameter name", option, name)};
        }
        out.emplace_back(name, words[i + 1]);
    }
    return {};
}

// A --timeout-like value, when given: a positive number of seconds.
Status read_seconds(const char* option, const std::string& text, int& out)
{
    if (text.empty()) return {};
    auto seconds = util::parse_int(text);
    if (!seconds || *seconds <= 0 || *seconds > 100000000) {
        return {Errc::bad_param, fmt::format("{} {}: expected a positive number of seconds", option, text)};
    }
    out = static_cast<int>(*seconds);
    return {};
}

// --mca, --gmca, -am and --tune: what they name, before it is routed (route_mca).
Status collect_routed(ContextTarget& t, std::vector<McaSetting>& routed)
{
    if (Status st = take_pairs("--mca", t.mca_words, routed); !st) return st;
    for (const std::string& list : t.param_files) {
        for (const std::string& path : util::split(list, ',', true)) {
            if (Status st = read_param_file(path, routed); !st) return st;
        }
    }
    for (const std::string& list : t.tune_files) {
        for (const std::string& path : util::split(list, ',', true)) {
            if (Status st = read_tune_file(path, routed, t.tune_exports); !st) return st;
        }
    }
    return {};
}

// Each --mca name to whoever reads it; one not Open MPI's, PMIx's or prte's is said once.
void route_mca(const std::vector<McaSetting>& routed, Request& r)
{
    const char* ompi_prefixes = std::getenv("OMPI_MCA_PREFIXES");
    for (const auto& [name, value] : routed) {
        McaOwners owners = mca_owners(name, r.personality, ompi_prefixes);
        if (owners.open_mpi) r.ompi_mca.emplace_back(name, value);
        if (owners.pmix) r.pmix_mca.emplace_back(name, value);
        if (owners.prte) r.mca.emplace_back(name, value);
        if (owners.none()) {
            add_note(r, fmt::format("--mca {}: no parameter of Open MPI 4.1, PMIx or prte starts with '{}': not passed "
                                    "on (name it with --omca, --pmixmca or --prtemca, or list Open MPI's prefix in "
                                    "OMPI_MCA_PREFIXES)",
                                    name, name.substr(0, name.find('_'))));
        }
    }
}


// The options that change nothing here, or cannot apply, and choosing the DVM: a note, a refusal
// naming why and what to use, or the setting they stand for.
Status finish_accepted(const ContextTarget& t, Request& r)
{
    if (!t.appfile.empty()) {
        return {Errc::bad_param, fmt::format("--app {}: only before the first program (the file gives the programs)", t.appfile)};
    }
    if (!t.max_restarts.empty()) {
        auto n = util::parse_int(t.max_restarts);
        if (!n || *n < 0 || *n > 100000) {
            return {Errc::bad_param, fmt::format("--max-restarts {}: expected a number from 0 to 100000", t.max_restarts)};
        }
        r.max_restarts = static_cast<int>(*n);
    }
    if (t.continuous) r.continuous = true;
    if (!t.xterm.empty()) {
        const char* display = std::getenv("DISPLAY");
        return {Errc::bad_param,
                fmt::format("--xterm {}: not supported: it needs an X display (DISPLAY is {}) on every node; run "
                            "'prun ... xterm -hold -e <program>' instead",
                            t.xterm, display && *display ? fmt::format("'{}'", display) : std::string("not set"))};
    }
    if (!t.report_uri.empty()) {
        return {Errc::bad_param, fmt::format("--report-uri {}: prun runs no PMIx server of its own, so it has no URI; "
                                             "'prte --report-uri' reports the DVM's",
                                             t.report_uri)};
    }
    if (t.allow_run_as_root) add_note(r, "--allow-run-as-root: accepted; prte never refuses to run as root");
    if (t.parseable) add_note(r, "--parseable: accepted; the reports are already one line per item");
    // Each of these names the DVM as a --dvm selector would (pterm maps them the same way).
    std::vector<std::pair<std::string, std::string>> selectors;
    if (!t.pid.empty()) selectors.emplace_back("--pid", "pid:" + t.pid);
    if (!t.nspace.empty()) selectors.emplace_back("--namespace", "ns:" + t.nspace);
    if (t.system_server_first) selectors.emplace_back("--system-server-first", "system-first");
    if (t.system_server_only) selectors.emplace_back("--system-server-only", "system");
    if (selectors.size() > 1) {
        return {Errc::bad_param, fmt::format("{} and {} each choose a DVM: give only one", selectors[0].first, selectors[1].first)};
    }
    if (!selectors.empty()) {
        const auto& [option, selector] = selectors.front();
        if (!r.dvm.empty() && r.dvm != selector) {
            return {Errc::bad_param, fmt::format("{} and --dvm {} cannot be combined", option, r.dvm)};
        }
        r.dvm = selector;
    }
    auto count = [](const char* option, const std::string& text, int& out) -> Status {
        if (text.empty()) return {};
        auto n = util::parse_int(text);
        if (!n || *n < 0 || *n > 100000) return {Errc::bad_param, fmt::format("{} {}: expected a number (0 or more)", option, text)};
        out = static_cast<int>(*n);
        return {};
    };
    if (Status st = count("--num-connect-retries", t.num_connect_retries, r.connect_retries); !st) return st;
    r.connect_wait = r.connect_retries > 0 ? 1 : 0;
    if (Status st = count("--wait-to-connect", t.wait_to_connect, r.connect_wait); !st) return st;
    return {};
}

Status finish_context(const CLI::App& cli, ContextTarget& t, const std::vector<std::string>& program, bool after_dashes,
                      Request& r, std::vector<McaSetting>& routed)
{
    if (Status st = take_pairs("--prtemca", t.prte_mca_words, r.mca); !st) return st;
    if (Status st = take_pairs("--omca", t.omca_words, r.ompi_mca); !st) return st;
    if (Status st = collect_routed(t, routed); !st) return st;
    if (Status st = collect_environment(cli, t); !st) return st;
    if (Status st = finish_accepted(t, r); !st) return st;
    // Read, and checked, once the command line is whole (tools/prun/preload.h).
    t.app.preload_binary = t.preload_binary;
    t.app.preload_files = util::split(t.preload_files, ',', true);
    if (!t.personality.empty()) {
        std::string p = lower(t.personality);
        if (p != "ompi" && p != "prte") {
            return {Errc::bad_param, fmt::format("--personality {}: expected ompi or prte", t.personality)};
        }
        r.personality = p == "ompi" ? Personality::ompi : Personality::prte;
    }
    if (Status st = take_pairs("--pmixmca", t.pmix_mca_words, r.pmix_mca); !st) return st;
    for (const std::string& v : t.display_values) {
        if (Status st = parse_display(v, r.reports, &r.notes); !st) return st;
    }
    // The first context's --map-by (and the spellings folded into it) is the job's; a later
    // context's is its app's own (MPMD), the job's applying where it gives none.
    std::string& map_by = r.apps.empty() ? r.map_by : t.app.map_by;
    map_by = t.map_by;
    if (Status st = apply_per_node(t, map_by); !st) return st;
    if (Status st = apply_old_placement(t, map_by, r); !st) return st;
    for (const std::string& v : t.runtime_options) {
        if (Status st = apply_runtime_options(v, r, map_by); !st) return st;
    }
    for (const OldSpelling& old : kOldSpellings) {
        if (!(t.*old.flag)) continue;
        add_note(r, fmt::format("{} is PRRTE's older spelling of {}: accepted, but use {}", old.option, old.current,
                                old.current));
    }
    if (t.tag_output) r.output.tag = true;
    if (t.timestamp_output) r.output.timestamp = true;
    if (t.merge_stderr_to_stdout) r.output.merge_stderr = true;
    if (t.xml) r.output.xml = true;
    if (t.display_map) r.reports.map = true;
    if (t.display_allocation) r.reports.allocation = true;
    if (program.empty()) return {Errc::bad_param, "no program to run was given"};
    if (!after_dashes && !program[0].empty() && program[0][0] == '-') {
        return {Errc::bad_param, fmt::format("unknown option '{}'", program[0])};
    }
    if (t.app.np < 0) return {Errc::bad_param, fmt::format("-n {}: the number of processes cannot be negative", t.app.np)};
    for (const std::string& v : t.output_values) {
        if (Status st = parse_output(v, r.output); !st) return st;
    }
    if (!t.output_filename.empty()) {
        std::string spec = "dir=" + t.output_filename;
        // Open MPI's qualifiers come comma-separated after one ':' (DIR:nocopy,nojobid).
        std::replace(spec.begin(), spec.end(), ',', ':');
        if (Status st = parse_output_files("--output-filename", spec, r.output.files); !st) return st;
    }

    if (Status st = read_seconds("--timeout", t.timeout_text, r.timeout); !st) return st;
    if (!t.forward_signals_text.empty()) {
        if (Status st = parse_forward_signals(t.forward_signals_text, r.forward_signals); !st) return st;
    }
    if (Status st = read_seconds("--spawn-timeout", t.spawn_timeout_text, r.spawn_timeout); !st) return st;
    if (Status st = read_seconds("--queue-timeout", t.queue_timeout_text, r.queue_timeout); !st) return st;
    if (r.queue_timeout > 0) r.queue = true;
    if (!r.mpi.empty()) {
        r.mpi = lower(r.mpi);
        if (r.mpi != "pmix" && r.mpi != "pmi1" && r.mpi != "pmi2" && r.mpi != "none") {
            return {Errc::bad_param, fmt::format("--mpi {}: expected pmix, pmi1, pmi2 or none (without --mpi a "
                                                 "process gets both PMIx and PMI)", r.mpi)};
        }
    }
    if (!t.stdin_value.empty()) {
        std::string v = lower(t.stdin_value);
        if (v == "none") {
            r.stdin_target = {StdinTarget::none, 0};
        } else if (v == "all") {
            r.stdin_target = {StdinTarget::all, 0};
        } else if (auto rank = util::parse_int(v); rank && *rank >= 0) {
            r.stdin_target = {StdinTarget::rank, static_cast<int>(*rank)};
        } else {
            return {Errc::bad_param,
                    fmt::format("--stdin {}: expected one rank, all or none{}", t.stdin_value,
                                v.find(',') != std::string::npos ? " (a list of ranks is not supported, as in PRRTE: "
                                                                   "use all, and let the other ranks ignore it)"
                                                                 : "")};
        }
    }
    t.app.command = program[0];
    t.app.argv = program;
    r.apps.push_back(std::move(t.app));
    return {};
}

}  // namespace

namespace {

// The DVM's own readers (runtime/placement_spec.h), so that prun refuses what the DVM would; an
// error names the option and its value as the user wrote them.
template <typename Read>
Status read_placement(const char* option, const std::string& value, Read read)
{
    if (value.empty()) return {};
    if (Status st = read(); !st) return {Errc::bad_param, fmt::format("{} {}: {}", option, value, st.message())};
    return {};
}

}  // namespace

Status check_map_by(const std::string& value)
{
    runtime::MappingPolicy mapping;
    runtime::JobReports reports;
    return read_placement("--map-by", value, [&] { return runtime::parse_map_by(value, mapping, reports); });
}

Status check_bind_to(const std::string& value)
{
    runtime::MappingPolicy mapping;
    runtime::JobReports reports;
    return read_placement("--bind-to", value, [&] { return runtime::parse_bind_to(value, mapping, reports); });
}

Status check_placement(const Request& r)
{
    runtime::MappingPolicy mapping;
    runtime::JobReports reports;
    Status st = read_placement("--map-by", r.map_by, [&] { return runtime::parse_map_by(r.map_by, mapping, reports); });
    if (st) st = read_placement("--rank-by", r.rank_by, [&] { return runtime::parse_rank_by(r.rank_by, mapping); });
    if (st) st = read_placement("--bind-to", r.bind_to, [&] { return runtime::parse_bind_to(r.bind_to, mapping, reports); });
    if (!st) return st;
    if (st = runtime::check_combination(mapping); !st) return st;
    // An app's own --map-by (MPMD), read as the DVM reads it: in place of the job's mapping words.
    for (size_t i = 0; i < r.apps.size(); ++i) {
        const std::string& own = r.apps[i].map_by;
        runtime::MappingPolicy app_policy;
        if (own.empty()) continue;
        if (Status a = runtime::app_mapping(mapping, own, app_policy); !a) {
            return {Errc::bad_param, fmt::format("--map-by {} (app {}, {}): {}", own, i, r.apps[i].command, a.message())};
        }
    }
    return {};
}

// dir=DIR / file=PATH, with qualifiers after ':' (nocopy, nojobid), and the bare qualifiers.
Status parse_output_files(const std::string& option, const std::string& word, FileOutput& files)
{
    std::string w = lower(word);
    if (w == "nocopy") {
        files.copy = false;
        return {};
    }
    if (w == "nojobid") {
        files.jobid = false;
        return {};
    }
    bool dir = w.rfind("dir=", 0) == 0;
    std::vector<std::string> parts = util::split(word.substr(dir ? 4 : 5), ':');
    if (parts.empty() || parts[0].empty()) {
        return {Errc::bad_param, fmt::format("{} {}: expected a path after '='", option, word)};
    }
    files.kind = dir ? FileOutput::Kind::dir : FileOutput::Kind::file;
    files.path = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
        std::string q = lower(parts[i]);
        if (q == "nocopy") {
            files.copy = false;
        } else if (q == "nojobid" && dir) {
            files.jobid = false;
        } else {
            return {Errc::bad_param, fmt::format("{} {}: unknown qualifier '{}' (nocopy{})", option, word, parts[i],
                                                 dir ? ", nojobid" : "")};
        }
    }
    return {};
}

Status parse_output(const std::string& value, OutputOptions& out)
{
    for (const std::string& word : util::split(value, ',', true)) {
        std::string w = lower(word);
        if (w.rfind("dir=", 0) == 0 || w.rfind("file=", 0) == 0 || w == "nocopy" || w == "nojobid") {
            if (Status st = parse_output_files("--output", word, out.files); !st) return st;
            continue;
        }
        // Qualifiers after ':' (PRRTE's): raw, nocopy.
        std::vector<std::string> parts = util::split(w, ':');
        w = parts.empty() ? w : parts[0];
        for (size_t i = 1; i < parts.size(); ++i) {
            if (parts[i] == "raw") {
                out.raw = true;
            } else if (parts[i] == "nocopy") {
                out.files.copy = false;
            } else {
                return {Errc::bad_param, fmt::format("--output {}: unknown qualifier '{}' (raw, nocopy)", value, parts[i])};
            }
        }
        if (w.empty()) continue;  // only qualifiers
        // A unique prefix stands for the word, as in PRRTE ("merge", "tag-f"); "tag" is tag itself.
        static const char* const kWords[] = {"tag", "tag-fullname", "tag-detailed", "rank", "timestamp",
                                             "merge-stderr-to-stdout", "raw", "xml"};
        std::vector<std::string> matches;
        for (const char* k : kWords) {
            if (w == k) {
                matches = {k};
                break;
            }
            if (std::string(k).rfind(w, 0) == 0) matches.push_back(k);
        }
        if (matches.size() == 1) w = matches[0];
        if (w == "tag") {
            out.tag = true;
        } else if (w == "tag-fullname") {
            out.tag = out.tag_fullname = true;
        } else if (w == "tag-detailed") {
            out.tag = out.tag_detailed = true;
        } else if (w == "rank") {
            out.rank = true;
        } else if (w == "xml") {
            out.xml = true;
        } else if (w == "timestamp") {
            out.timestamp = true;
        } else if (w == "merge-stderr-to-stdout" || w == "merge") {
            out.merge_stderr = true;
        } else if (w == "raw") {
            out.raw = true;
        } else {
            return {Errc::bad_param,
                    fmt::format("--output {}: unknown format '{}' (tag, tag-fullname, tag-detailed, rank, timestamp, xml, "
                                "merge-stderr-to-stdout, raw, dir=DIR, file=PATH, nocopy, nojobid; qualifiers :raw, :nocopy)",
                                value, word)};
        }
    }
    return {};
}

Status parse_display(const std::string& value, Reports& out, std::vector<std::string>* notes)
{
    auto note = [notes](std::string text) {
        if (notes && std::find(notes->begin(), notes->end(), text) == notes->end()) notes->push_back(std::move(text));
    };
    for (std::string word : util::split(value, ',', true)) {
        // PRRTE's qualifiers come after a ':' and apply to the whole display: only `physical`
        // changes what this DVM shows.
        std::vector<std::string> parts = util::split(word, ':');
        word = parts.empty() ? word : parts[0];
        for (size_t i = 1; i < parts.size(); ++i) {
            std::string q = lower(parts[i]);
            if (q == "physical") {
                out.physical = true;
            } else if (q == "parseable" || q == "parsable") {
                note(fmt::format("--display {}: :{} accepted; the reports are already one line per item", value, q));
            } else {
                return {Errc::bad_param, fmt::format("--display {}: unknown or unsupported qualifier '{}' (physical, parseable)",
                                                     value, parts[i])};
            }
        }
        std::string w = lower(word);
        if (w == "map-devel" || w == "map-d" || w == "map-de" || w == "map-dev" || w == "map-deve") {
            out.map = out.bindings = true;
            note(fmt::format("--display {}: map-devel shows the map and each process's binding here (--display map,bind)", value));
        } else if (w == "cpus" || w.rfind("cpus=", 0) == 0) {
            out.cpus = true;
            out.cpus_hosts = w == "cpus" ? std::string() : std::string(util::trim(util::trim(word).substr(5)));
        } else if (w == "map") {
            out.map = true;
        } else if (w == "allocation" || w == "alloc") {
            out.allocation = true;
        } else if (w == "bind" || w == "bindings") {
            out.bindings = true;
        } else if (w == "topo" || w.rfind("topo=", 0) == 0) {
            out.topology = true;
            out.topology_hosts = w == "topo" ? std::string() : std::string(util::trim(util::trim(word).substr(5)));
        } else {
            return {Errc::bad_param, fmt::format("--display {}: unknown or unsupported report '{}' (map, allocation, "
                                                 "bind, topo[=host;host], cpus[=host;host])",
                                                 value, word)};
        }
    }
    return {};
}

namespace {

// `--app FILE` among the first context's options: the command line becomes FILE's lines joined
// by ':', each after the other options given (so that they apply to every line).
Status expand_appfile(std::vector<std::string>& args, std::vector<std::string>& notes)
{
    std::vector<std::string> options;
    std::string file;
    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& t = args[i];
        if (t == ":" || t == "--" || t.empty() || t[0] != '-') break;
        if (t == "--app" || t.rfind("--app=", 0) == 0) {
            if (!file.empty()) return {Errc::bad_param, "--app: given twice (one file holds every app context)"};
            if (t == "--app" && i + 1 >= args.size()) return {Errc::bad_param, "--app: expected a FILE"};
            file = t == "--app" ? args[++i] : t.substr(6);
            continue;
        }
        options.push_back(t);
        if (t.find('=') != std::string::npos) continue;
        for (int k = value_words(t); k > 0 && i + 1 < args.size(); --k) options.push_back(args[++i]);
    }
    if (file.empty()) return {};
    if (i < args.size()) {
        return {Errc::bad_param, fmt::format("--app {} and a program ('{}') on the command line: give every program in "
                                             "the file",
                                             file, args[i])};
    }
    std::vector<std::vector<std::string>> contexts;
    if (Status st = read_appfile(file, contexts); !st) return st;
    std::vector<std::string> expanded;
    for (const auto& context : contexts) {
        if (!expanded.empty()) expanded.push_back(":");
        expanded.insert(expanded.end(), options.begin(), options.end());
        expanded.insert(expanded.end(), context.begin(), context.end());
    }
    return normalize(expanded, args, notes);
}

// `--help <topic>` / `-h <topic>` as the first words: PRRTE's per-option help.
bool help_topic(const std::vector<std::string>& args, std::string& topic)
{
    if (args.size() < 2 || (args[0] != "--help" && args[0] != "-h")) return false;
    topic = args[1];
    return true;
}

}  // namespace

Status parse(const std::vector<std::string>& raw_args, Request& out)
{
    Request r;
    if (help_topic(raw_args, r.help_topic)) {
        r.help = true;
        out = std::move(r);
        return {};
    }
    std::vector<std::string> args;
    if (Status st = normalize(raw_args, args, r.notes); !st) return st;
    if (Status st = expand_appfile(args, r.notes); !st) return st;
    std::vector<McaSetting> routed;  // --mca and the like, routed once --personality is known

    size_t start = 0;
    while (true) {
        // This context's words run to the next ':' after its program (or to the end).
        ContextTarget target;
        CLI::App cli{"prun", "prun"};
        add_options(cli, target, r);
        std::vector<std::string> words(args.begin() + static_cast<long>(start), args.end());
        std::reverse(words.begin(), words.end());  // CLI11 takes a reversed vector
        try {
            cli.parse(words);
        } catch (const CLI::CallForHelp&) {
            r.help = true;
            out = std::move(r);
            return {};
        } catch (const CLI::ParseError& e) {
            return {Errc::bad_param, e.what()};
        }
        if (r.version) {
            out = std::move(r);
            return {};
        }
        std::vector<std::string> rest = cli.remaining();
        bool after_dashes = !rest.empty() && rest[0] == "--";
        if (after_dashes) rest.erase(rest.begin());
        auto colon = std::find(rest.begin(), rest.end(), ":");
        std::vector<std::string> program(rest.begin(), colon);
        if (Status st = finish_context(cli, target, program, after_dashes, r, routed); !st) return st;
        if (colon == rest.end()) break;
        // The next context starts after that ':' in the normalized arguments.
        size_t consumed = args.size() - static_cast<size_t>(rest.end() - colon);
        start = consumed + 1;
        if (start >= args.size()) return {Errc::bad_param, "nothing follows the last ':'"};
    }

    route_mca(routed, r);
    if (Status st = check_placement(r); !st) return st;
    if (Status st = finish_restarts(r); !st) return st;
    if (r.output.files.kind != FileOutput::Kind::none) {
        // Ranks zero-padded to the width of the largest, when every app says how many it runs.
        int total = 0;
        bool known = true;
        for (const auto& app : r.apps) {
            if (app.np <= 0) known = false;
            total += app.np;
        }
        if (known && total > 0) r.output.files.rank_digits = static_cast<int>(std::to_string(total - 1).size());
    }
    out = std::move(r);
    return {};
}

Status apply_mpiexec_timeout(const char* value, Request& request)
{
    if (request.timeout == 0 && value && *value) {
        auto seconds = util::parse_int(value);
        if (!seconds || *seconds < 0 || *seconds > 100000000) {
            return {Errc::bad_param,
                    fmt::format("MPIEXEC_TIMEOUT={}: expected a number of seconds (0: none), as for --timeout", value)};
        }
        request.timeout = static_cast<int>(*seconds);
    }
    if (request.timeout == 0 && (request.report_state_on_timeout || request.stack_traces_on_timeout)) {
        add_note(request, fmt::format("{} does nothing without --timeout (or MPIEXEC_TIMEOUT)",
                                      request.report_state_on_timeout ? "--report-state-on-timeout" : "--get-stack-traces"));
    }
    return {};
}

void make_hostfiles_absolute(Request& request, const std::string& cwd)
{
    for (AppContext& app : request.apps) {
        for (std::string* path : {&app.hostfile, &app.add_hostfile}) {
            std::filesystem::path file(*path);
            if (path->empty() || file.is_absolute()) continue;
            *path = (std::filesystem::path(cwd) / file).lexically_normal().string();
        }
    }
    // --map-by seq/rankfile:FILE=<path>, the job's and each app's own: the DVM reads it too.
    auto absolute_file = [&cwd](std::string& map_by) {
        if (map_by.empty()) return;
        std::vector<std::string> words = util::split(map_by, ':');
        for (std::string& word : words) {
            if (lower(word.substr(0, 5)) != "file=") continue;
            std::filesystem::path file(word.substr(5));
            if (!file.empty() && !file.is_absolute()) {
                word = word.substr(0, 5) + (std::filesystem::path(cwd) / file).lexically_normal().string();
            }
        }
        map_by = util::join(words, ":");
    };
    absolute_file(request.map_by);
    for (AppContext& app : request.apps) absolute_file(app.map_by);
    // --path DIR: a program named without '/' is DIR's, DIR taken from prun's working directory.
    for (AppContext& app : request.apps) {
        if (app.path.empty() || app.command.find('/') != std::string::npos) continue;
        std::filesystem::path dir(app.path);
        if (!dir.is_absolute()) dir = std::filesystem::path(cwd) / dir;
        app.command = (dir / app.command).lexically_normal().string();
    }
}

int option_value_words(const std::string& option) { return value_words(option); }

namespace {

// CLI11's own usage line ("prun [OPTIONS]") would follow ours and say less: one line says it all.
class ProgramUsage : public CLI::Formatter {
  public:
    explicit ProgramUsage(std::string program) : program_(std::move(program)) {}
    std::string make_usage(const CLI::App*, std::string) const override
    {
        return "Usage: " + program_ + " [options] <program> [arguments] [: [options] <program> [arguments] ...]\n";
    }

  private:
    std::string program_;
};

}  // namespace

namespace {

// `text` broken into lines of at most `width` characters, each indented by `indent` spaces.
std::string wrap(const std::string& text, size_t width, size_t indent)
{
    std::string out, line;
    for (const std::string& word : util::split(text, ' ', true)) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
    return out;
}

}  // namespace

Status option_help(const std::string& program, const std::string& topic, std::string& page)
{
    Request r;
    ContextTarget t;
    CLI::App cli{program, program};
    add_options(cli, t, r);
    std::string bare = topic.substr(topic.find_first_not_of('-') == std::string::npos ? 0 : topic.find_first_not_of('-'));
    const CLI::Option* option = nullptr;
    // "x" is -x, "N" is -N: a single letter's one-dash option first (rare_options.h has --x, --N).
    std::string one_dash = "-" + bare, two_dash = "--" + bare;
    if (bare.size() == 1) std::swap(one_dash, two_dash);
    for (const std::string& name : {topic, two_dash, one_dash}) {
        if (!option && !name.empty() && name[0] == '-') option = cli.get_option_no_throw(name);
    }
    if (bare == "help" || bare == "h") option = nullptr;
    if (!option) {
        if (bare == "help" || bare == "h") {
            page = usage(program);
            return {};
        }
        return {Errc::bad_param, fmt::format("--help {}: {} has no option named '{}' ('{} --help' lists them)", topic,
                                             program, bare, program)};
    }
    std::vector<std::string> names;
    for (const std::string& s : option->get_snames()) names.push_back("-" + s);
    for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
    std::string type = option->get_type_size() == 0 ? std::string() : " " + option->get_type_name();
    page = fmt::format("{} {}{}\n\n{}", program, util::join(names, ", "), type, wrap(option->get_description(), 96, 4));
    return {};
}

std::string usage(const std::string& program, const std::string& summary, const std::string& footer)
{
    Request r;
    ContextTarget t;
    std::string description =
        !summary.empty() ? summary
                         : "prun: run a job in a running DVM (started with 'prte --daemonize'), relaying its output, "
                           "and exit with its status.";
    CLI::App cli{description, program};
    cli.formatter(std::make_shared<ProgramUsage>(program));
    add_options(cli, t, r);
    cli.footer((!footer.empty() ? footer : "The DVM is the only one this user runs, or the one chosen with --dvm or --dvm-uri.") +
               "\nOptions stop at the program: '" + program + " -n 2 hostname -s' passes -s to hostname.\n"
               "Exit status: the job's (a process that failed or was killed makes it non-zero); 110 when "
               "--timeout or --spawn-timeout ended it; 2 for a usage error.");
    return cli.help();
}

}  // namespace prte::prun
