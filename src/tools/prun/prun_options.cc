#include "tools/prun/prun_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "runtime/placement_spec.h"
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
                                                "spawn-timeout", "report-state-on-timeout", "get-stack-traces"};
    return names;
}

// Rewrites "-np" to "--np" (and the like) in the option part of each context, leaving the
// programs' own arguments alone.
std::vector<std::string> normalize(const std::vector<std::string>& args)
{
    std::vector<std::string> out;
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
            if (single_dash_long_options().count(name)) t = "--" + name + value;
        }
        out.push_back(t);
        if (t.size() > 1 && t[0] == '-') {
            if (t.find('=') != std::string::npos) continue;
            auto it = option_arity().find(t);
            if (it == option_arity().end()) continue;
            for (int k = 0; k < it->second && i + 1 < args.size(); ++k) out.push_back(args[++i]);
            continue;
        }
        in_program = true;  // the first word that is not an option is the program
    }
    return out;
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
    std::string npernode_text;  // -N / --npernode
    bool pernode = false;
    std::vector<std::string> pmix_mca_words;
    std::vector<std::string> display_values;
    // PRRTE's older spellings, each accepted with a note naming the current one.
    bool tag_output = false, timestamp_output = false, merge_stderr_to_stdout = false;
    bool display_map = false, display_allocation = false;
    // PRRTE's older placement spellings (apply_old_placement), each folded into --map-by or
    // --bind-to with a note.
    std::string rankfile, cpus_per_rank, npersocket;
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
};

void add_options(CLI::App& cli, ContextTarget& t, Request& r)
{
    auto take_each = [](CLI::Option* o) {
        return o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };
    cli.add_option("-n,-c,--np", t.app.np, "Number of processes to run")->type_name("N");
    take_each(cli.add_option("-x", t.app.exports,
                             "Export an environment variable to the job: NAME (its value here) or NAME=value; "
                             "repeatable"))
        ->type_name("VAR[=value]");
    take_each(cli.add_option("--host,-H", t.app.hosts, "Nodes to run on: h1,h2:2 (name[:slots],...)"))
        ->type_name("LIST");
    cli.add_option("--hostfile", t.app.hostfile, "A hostfile naming the nodes to run on")->type_name("FILE");
    take_each(cli.add_option("--add-host", t.app.add_hosts,
                             "Grow the DVM onto these nodes first (an elastic DVM): h1,h2:2 (name[:slots],...)"))
        ->type_name("LIST");
    cli.add_option("--add-hostfile", t.app.add_hostfile, "Grow the DVM onto the nodes of this hostfile first")
        ->type_name("FILE");
    cli.add_option("--wdir", t.app.wdir, "Working directory of the processes (default: prun's)")->type_name("DIR");

    cli.add_option("--map-by", t.map_by,
                   fmt::format("Where processes go (default core): {}; qualifiers after ':' {}",
                               runtime::kMapPolicies, runtime::kMapQualifiers))
        ->type_name("POLICY[:QUALIFIER...]");
    cli.add_option("--rank-by", r.rank_by,
                   fmt::format("How ranks are numbered (default: as mapped): {}", runtime::kRankPolicies))
        ->type_name("POLICY[:SPAN]");
    cli.add_option("--bind-to", r.bind_to,
                   fmt::format("What each process is bound to (default: its own CPU): {}; qualifiers after ':' {}",
                               runtime::kBindLevels, runtime::kBindQualifiers))
        ->type_name("LEVEL[:QUALIFIER...]");
    take_each(cli.add_option("--output", t.output_values,
                             "Output format, a comma list of: tag, tag-fullname, timestamp, "
                             "merge-stderr-to-stdout, raw; and to files: dir=DIR (DIR/<job>/rank.N/stdout, "
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
                             "nodes and their slots) and topo[=host;host] (each node's hardware), on stdout before "
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
    cli.add_flag("--verbose", r.verbose, "Say what prun does (DVM chosen, job namespace)");
    cli.add_flag("-V,--version", r.version, "Show the version");
    cli.set_help_flag("-h,--help", "Show this help");
    cli.prefix_command();  // stop at the program: its own options are its own
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
            if (Status st = read_tune_file(path, routed, t.app.exports); !st) return st;
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

Status finish_context(ContextTarget& t, const std::vector<std::string>& program, bool after_dashes, Request& r,
                      std::vector<McaSetting>& routed)
{
    if (Status st = take_pairs("--prtemca", t.prte_mca_words, r.mca); !st) return st;
    if (Status st = take_pairs("--omca", t.omca_words, r.ompi_mca); !st) return st;
    if (Status st = collect_routed(t, routed); !st) return st;
    if (!t.personality.empty()) {
        std::string p = lower(t.personality);
        if (p != "ompi" && p != "prte") {
            return {Errc::bad_param, fmt::format("--personality {}: expected ompi or prte", t.personality)};
        }
        r.personality = p == "ompi" ? Personality::ompi : Personality::prte;
    }
    if (Status st = take_pairs("--pmixmca", t.pmix_mca_words, r.pmix_mca); !st) return st;
    for (const std::string& v : t.display_values) {
        if (Status st = parse_display(v, r.reports); !st) return st;
    }
    // The first context's --map-by (and the spellings folded into it) is the job's; a later
    // context's is its app's own (MPMD), the job's applying where it gives none.
    std::string& map_by = r.apps.empty() ? r.map_by : t.app.map_by;
    map_by = t.map_by;
    if (Status st = apply_per_node(t, map_by); !st) return st;
    if (Status st = apply_old_placement(t, map_by, r); !st) return st;
    for (const OldSpelling& old : kOldSpellings) {
        if (!(t.*old.flag)) continue;
        add_note(r, fmt::format("{} is PRRTE's older spelling of {}: accepted, but use {}", old.option, old.current,
                                old.current));
    }
    if (t.tag_output) r.output.tag = true;
    if (t.timestamp_output) r.output.timestamp = true;
    if (t.merge_stderr_to_stdout) r.output.merge_stderr = true;
    if (t.display_map) r.reports.map = true;
    if (t.display_allocation) r.reports.allocation = true;
    if (program.empty()) return {Errc::bad_param, "no program to run was given"};
    if (!after_dashes && !program[0].empty() && program[0][0] == '-') {
        return {Errc::bad_param, fmt::format("unknown option '{}'", program[0])};
    }
    if (t.app.np < 0) return {Errc::bad_param, fmt::format("-n {}: the number of processes cannot be negative", t.app.np)};
    for (const std::string& x : t.app.exports) {
        std::string name = x.substr(0, x.find('='));
        if (name.empty()) return {Errc::bad_param, fmt::format("-x '{}': expected NAME or NAME=value", x)};
    }
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
            return {Errc::bad_param, fmt::format("--stdin {}: expected a rank, all or none", t.stdin_value)};
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
        if (w == "tag") {
            out.tag = true;
        } else if (w == "tag-fullname") {
            out.tag = out.tag_fullname = true;
        } else if (w == "timestamp") {
            out.timestamp = true;
        } else if (w == "merge-stderr-to-stdout" || w == "merge") {
            out.merge_stderr = true;
        } else if (w == "raw") {
            out.raw = true;
        } else {
            return {Errc::bad_param,
                    fmt::format("--output {}: unknown format '{}' (tag, tag-fullname, timestamp, "
                                "merge-stderr-to-stdout, raw, dir=DIR, file=PATH, nocopy, nojobid)",
                                value, word)};
        }
    }
    return {};
}

Status parse_display(const std::string& value, Reports& out)
{
    for (std::string word : util::split(value, ',', true)) {
        // PRRTE's qualifiers come after a ':' and apply to the whole display: only `physical`
        // changes what this DVM shows.
        std::vector<std::string> parts = util::split(word, ':');
        word = parts.empty() ? word : parts[0];
        for (size_t i = 1; i < parts.size(); ++i) {
            std::string q = lower(parts[i]);
            if (q == "physical") {
                out.physical = true;
            } else {
                return {Errc::bad_param, fmt::format("--display {}: unknown or unsupported qualifier '{}' (physical)",
                                                     value, parts[i])};
            }
        }
        std::string w = lower(word);
        if (w == "map") {
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
                                                 "bind, topo[=host;host])",
                                                 value, word)};
        }
    }
    return {};
}

Status parse(const std::vector<std::string>& raw_args, Request& out)
{
    Request r;
    std::vector<std::string> args = normalize(raw_args);
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
        if (Status st = finish_context(target, program, after_dashes, r, routed); !st) return st;
        if (colon == rest.end()) break;
        // The next context starts after that ':' in the normalized arguments.
        size_t consumed = args.size() - static_cast<size_t>(rest.end() - colon);
        start = consumed + 1;
        if (start >= args.size()) return {Errc::bad_param, "nothing follows the last ':'"};
    }

    route_mca(routed, r);
    if (Status st = check_placement(r); !st) return st;
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
}

int option_value_words(const std::string& option)
{
    auto it = option_arity().find(option);
    return it == option_arity().end() ? 0 : it->second;
}

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
