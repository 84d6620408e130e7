#include "tools/prun/rare_options.h"

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::prun {
namespace {

using K = RareOption::Kind;

// The reasons shared by several rows.
constexpr const char* kDvmOption =
    "describes the DVM, which runs already: it is prte's option (give it to prte, or to prterun, which "
    "starts a DVM of its own); changes nothing here";
constexpr const char* kSchedulerOption =
    "names a scheduler's allocation or session (PRRTE's scheduler integration); this DVM runs on the nodes it "
    "was started with and has no allocations to name: changes nothing here";
constexpr const char* kOpenMpiOption =
    "an Open MPI setting that PRRTE's mpirun personality translates for its processes; prun does not "
    "translate it: changes nothing here (set Open MPI's parameter with --omca NAME VALUE)";
constexpr const char* kDebugger =
    "attaching a debugger is not supported yet (issue 42: the debugger support is not built); run the "
    "program under one instead: prun -n 1 gdb --args <program>";

// Sorted by name. PRRTE's single-dash spellings ("-hnp", "-cf") are these names after prun's
// normalize() has given them two dashes.
const RareOption kRareOptions[] = {
    {"--activate", 1, K::refuse,
     "PRRTE starts daemons on nodes of the DVM's allocation that have none (an elastic DVM only); here an elastic "
     "DVM grows onto named nodes with 'palloc -w NODES' (docs/elastic.md) and a job names the nodes with --host"},
    {"--alloc-id", 1, K::note, kSchedulerOption},
    {"--alloc-refid", 1, K::note, kSchedulerOption},
    {"--amca", 1, K::alias, "--am {}", true},
    {"--app-pmix-prefix", 1, K::note,
     "the PMIx library the job's processes load is the one they were built with (or LD_LIBRARY_PATH, set with -x); "
     "changes nothing here"},
    {"--arch", 1, K::note,
     "the MPI standard's mpiexec key naming the architecture to run on; every node of this DVM runs this build of "
     "prte on this architecture: changes nothing here"},
    {"--bind-to-socket", 0, K::alias, "--bind-to package", true},
    {"--cartofile,--cf", 1, K::note, "a cartography file is not read (PRRTE reads none either); changes nothing here"},
    {"--debug", 0, K::note,
     "prun has no debug output of its own; the DVM's is set when prte starts (prte --debug-daemons, "
     "--prtemca <framework>_verbose N); changes nothing here"},
    {"--debug-daemons", 0, K::note, kDvmOption},
    {"--debug-daemons-file", 0, K::note, kDvmOption},
    {"--debug-devel,-d", 0, K::note,
     "prun has no debug output of its own; the DVM's is set when prte starts (prte --debug-daemons, "
     "--prtemca <framework>_verbose N); changes nothing here"},
    {"--debugger", 1, K::refuse, kDebugger},
    {"--default-hostfile", 1, K::note, kDvmOption},
    {"--display-comm", 0, K::note, kOpenMpiOption},
    {"--display-comm-finalize", 0, K::note, kOpenMpiOption},
    {"--display-devel-allocation", 0, K::alias, "--display allocation", true},
    {"--display-devel-map", 0, K::alias, "--display map-devel", true},
    {"--display-diffable-map", 0, K::alias, "--display map", true},
    {"--display-topo", 0, K::alias, "--display topo", true},
    {"--do-not-connect", 0, K::refuse,
     "prun submits its job to a running DVM, so it must connect to one; to start programs without a DVM there is "
     "none, use prterun"},
    {"--do-not-resolve", 0, K::note, "node names are given to the DVM as typed, never resolved here; changes nothing"},
    {"--enable-instant-on-support", 0, K::note,
     "the job's processes get their PMIx information from their node's daemon as they start; changes nothing here"},
    {"--file", 1, K::note,
     "the MPI standard's mpiexec key (a file of launch directions of the implementation's own), which PRRTE's "
     "mpirun personality accepts and reads not; prun reads no such file (--app FILE reads one context a line): "
     "changes nothing here"},
    {"--fwd-mpirun-port", 0, K::note, "the daemons reach each other as the DVM was started; changes nothing here"},
    {"--gomca", 2, K::alias, "--omca {}", true},
    {"--gpu-support", 1, K::note, kOpenMpiOption},
    {"--hetero-nodes", 0, K::note, kDvmOption},
    {"--hnp", 1, K::alias, "--dvm-uri {}", true},
    {"--index-argv-by-rank", 0, K::refuse,
     "not supported: every process gets argv[0] as given; a process learns its rank from PMIx (or "
     "OMPI_COMM_WORLD_RANK)"},
    {"--initial-errhandler", 1, K::note, kOpenMpiOption},
    {"--launch-agent", 1, K::note, kDvmOption},
    {"--leave-session-attached", 0, K::note, kDvmOption},
    {"--max-vm-size", 1, K::note, kDvmOption},
    {"--memory-alloc-kinds", 1, K::note, kOpenMpiOption},
    {"--N", 1, K::alias, "-N {}"},
    {"--no-aggregate-help", 0, K::note, "prun prints each message once as it comes; changes nothing here"},
    {"--no-app-prefix", 0, K::note,
     "no installation prefix is set for the job's processes in any case (see --prefix); changes nothing here"},
    {"--noprefix", 0, K::note, kDvmOption},
    {"--novm", 0, K::note,
     "the DVM runs already on its nodes (prterun starts one on the nodes of --host/--hostfile); changes nothing here"},
    {"--ompi-server", 1, K::note,
     "the DVM serves the job's PMIx publish and lookup itself; no external ompi-server is used: changes nothing "
     "here"},
    {"--output-directory", 1, K::alias, "--output dir={}", true},
    {"--output-proctable", 0, K::refuse, kDebugger},
    {"--prefix", 1, K::note, kDvmOption},
    {"--pset", 1, K::note,
     "PRRTE tells the app's processes this name as their PMIx process set (PMIX_PSET_NAME); process sets are not "
     "served here, the processes belong to no named set: changes nothing here"},
    {"--report-child-jobs-separately", 0, K::alias, "--runtime-options report-child-jobs-separately", true},
    {"--report-events", 1, K::note, "no events are sent to another tool; changes nothing here"},
    {"--session-id", 1, K::note, kSchedulerOption},
    {"--set-cwd-to-session-dir", 0, K::refuse,
     "not supported: the processes have no per-job session directory of their own; use --wdir DIR"},
    {"--show-progress", 0, K::note, "the DVM prints no launch progress; changes nothing here"},
    {"--soft", 0, K::note,
     "the MPI standard's mpiexec key for a range of acceptable process counts; as in PRRTE's mpirun personality it "
     "takes no value and the count is what -n gives: changes nothing here"},
    {"--stop-in-app", 0, K::refuse, kDebugger},
    {"--stop-in-init", 0, K::refuse, kDebugger},
    {"--stop-on-exec", 0, K::refuse, kDebugger},
    {"--stream-buffering", 1, K::note, kOpenMpiOption},
    {"--tmpdir", 1, K::note, kDvmOption},
    {"--tv", 0, K::refuse, kDebugger},
    {"--uniform-nodes", 0, K::note, kDvmOption},
    {"--use-regexp", 0, K::note, "node lists are sent to the daemons as they are; changes nothing here"},
    {"--with-ft", 1, K::note, kOpenMpiOption},
    {"--x", 1, K::alias, "-x {}"},
    {"--xml-file", 1, K::refuse, "XML output goes to prun's stdout only: use --output xml and redirect stdout to the file"},
};

}  // namespace

std::span<const RareOption> rare_options() { return kRareOptions; }

const RareOption* find_rare_option(const std::string& spelling)
{
    for (const RareOption& o : kRareOptions) {
        for (const std::string& name : util::split(o.names, ',', true)) {
            if (name == spelling) return &o;
        }
    }
    return nullptr;
}

Status apply_rare_option(const RareOption& option, const std::string& spelling, const std::vector<std::string>& values,
                         std::vector<std::string>& out, std::vector<std::string>& notes)
{
    std::string given = spelling;
    for (const std::string& v : values) given += " " + v;
    auto add_note = [&notes](std::string text) {
        for (const std::string& n : notes) {
            if (n == text) return;
        }
        notes.push_back(std::move(text));
    };
    switch (option.kind) {
    case K::refuse:
        return {Errc::bad_param, fmt::format("{}: {}", spelling, option.action)};
    case K::note:
        add_note(fmt::format("{}: {}", given, option.action));
        return {};
    case K::alias:
        break;
    }
    // "{}" stands for the value words, as one word with them ("dir={}") or as words of their own.
    std::vector<std::string> template_words = util::split(option.action, ' ', true);
    std::vector<std::string> now;
    for (const std::string& w : template_words) {
        size_t at = w.find("{}");
        if (at == std::string::npos) {
            now.push_back(w);
        } else if (w == "{}") {
            now.insert(now.end(), values.begin(), values.end());
        } else {
            now.push_back(w.substr(0, at) + (values.empty() ? std::string() : values[0]) + w.substr(at + 2));
        }
    }
    if (option.older) {
        std::string current = util::join(now, " ");
        add_note(fmt::format("{} is PRRTE's older spelling of {}: accepted, but use {}", spelling, current, current));
    }
    out.insert(out.end(), now.begin(), now.end());
    return {};
}

std::string rare_option_help(const RareOption& option)
{
    switch (option.kind) {
    case K::alias: {
        std::string now = option.action;
        size_t at = now.find("{}");
        if (at != std::string::npos) now.replace(at, 2, option.words == 2 ? "NAME VALUE" : "VALUE");
        return fmt::format("{} {}", option.older ? "PRRTE's older spelling of" : "Same as", now);
    }
    case K::note:
        return fmt::format("Accepted, with a note: {}", option.action);
    case K::refuse:
        return fmt::format("Refused: {}", option.action);
    }
    return {};
}

}  // namespace prte::prun
