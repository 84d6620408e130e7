// prun's command line, with PRRTE's spellings: job-level options, then the program and its own
// arguments; several app contexts separated by ':' ("prun -n 1 a : -n 2 b").
//
// Option parsing stops at the program: "prun -n 2 hostname -s" passes -s to hostname.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/preload.h"
#include "tools/prun/environment_options.h"
#include "tools/prun/forward_signals.h"
#include "tools/prun/mca_routing.h"
#include "tools/prun/output_files.h"
#include "util/status.h"

namespace prte::prun {

// One app context: what pmix_app_t carries.
struct AppContext {
    std::string command;                 // the program as given
    std::vector<std::string> argv;       // argv[0] is the program
    int np = 0;                          // 0: let the DVM decide (one per slot)
    // -x, --set-env, --unset-env, --prepend-env, --append-env, in the order given (-x words of a
    // --tune file first); resolved by spawn_request against prun's environment.
    std::vector<EnvOption> environment;
    std::vector<std::string> hosts;      // --host: h1,h2:2 (each occurrence one list)
    std::string hostfile;                // --hostfile
    std::vector<std::string> add_hosts;  // --add-host: grow the DVM first (each occurrence one list)
    std::string add_hostfile;            // --add-hostfile
    std::string wdir;                    // --wdir; empty: prun's working directory
    std::string path;                    // --path: the directory the program is found in
    // --map-by given in this context after the first ':' (MPMD): this app's own policy, in place
    // of the job's. The first context's --map-by is the job's (Request::map_by).
    std::string map_by;
    // --preload-binary (-s) and --preload-files a,b: what to copy to the nodes, as given; read by
    // read_preloads (tools/prun/preload.h) into `preloads`, which travel with the spawn request.
    bool preload_binary = false;
    std::vector<std::string> preload_files;
    std::vector<runtime::PreloadFile> preloads;
};

struct OutputOptions {
    bool tag = false;            // [jobid,rank]<stdout>:
    bool tag_fullname = false;   // [nspace,rank]<stdout>:
    bool tag_detailed = false;   // [jobid,rank][host:pid]<stdout>: (with tag_fullname: the namespace)
    bool rank = false;           // [rank]<stdout>: (the tags above win)
    bool xml = false;            // <stdout rank="N">line&#010;</stdout> inside <mpirun>...</mpirun>
    bool timestamp = false;
    bool merge_stderr = false;   // stderr lines go to stdout
    bool raw = false;            // write chunks as they come (no line assembly)
    FileOutput files;            // dir=, file=, --output-filename (output_files.h)
};

// Where the job's stdin comes from prun's: a rank, every rank, or nobody.
struct StdinTarget {
    enum Kind { rank, all, none } kind = rank;
    int value = 0;
};

// What the DVM shows before the job runs (--display) and as each process starts (--report-bindings).
struct Reports {
    bool map = false;         // --display map: where each rank goes, on stdout before the job runs
    bool allocation = false;  // --display allocation: the nodes and slots the job may use
    bool bindings = false;    // --report-bindings: one line per rank on its stderr, as it starts
    bool topology = false;    // --display topo[=host;host]: each node's hardware, before the map
    std::string topology_hosts;  // as given after topo=, ';'-separated; empty: every node
    bool cpus = false;        // --display cpus[=host;host]: each node's available CPUs, before the map
    std::string cpus_hosts;   // as given after cpus=, ';'-separated; empty: every node
    bool physical = false;    // --display ...:physical: bindings by the OS's ids, not hwloc's logical ones
};

struct Request {
    std::vector<AppContext> apps;
    std::string map_by;  // -N n / --npernode n / --pernode land here as ppr:n:node
    std::string rank_by;
    std::string bind_to;
    OutputOptions output;
    int timeout = 0;  // seconds; 0: none (--timeout, else MPIEXEC_TIMEOUT: apply_mpiexec_timeout)
    // When the timeout fires, before the job is ended: every process's state, node and pid
    // (--report-state-on-timeout), each live process's stack (--get-stack-traces).
    bool report_state_on_timeout = false;
    bool stack_traces_on_timeout = false;
    int spawn_timeout = 0;  // --spawn-timeout: seconds for every process to start; 0: none
    // --queue: wait for slots other jobs hold instead of failing; --queue-timeout (implies it):
    // for at most this many seconds (0: no limit).
    bool queue = false;
    int queue_timeout = 0;
    bool recoverable = false;  // --enable-recovery: a process's failure does not end the job
    // --runtime-options error-nonzero-status=false: a process exiting non-zero does not end the job.
    bool error_nonzero_status = true;
    bool forward_environment = false;  // --fwd-environment: all of prun's environment, first
    // --runtime-options report-child-jobs-separately (PMIX_REPORT_CHILD_SEP): prun exits with its
    // own job's status only; by default a job its processes spawned that fails gives its status.
    bool report_children_separately = false;
    // Restarting a failed process (runtime_options.h, finish_restarts): --max-restarts N and
    // --runtime-options max-restarts=N (-1: not given), autorestart, --continuous.
    int max_restarts = -1;
    std::optional<bool> autorestart;
    bool continuous = false;
    std::string mpi;  // --mpi pmix|pmi1|pmi2|none; empty: both PMIx and PMI (the DVM's default)
    std::string dvm_uri;
    std::string dvm;
    // Parameters for the job's processes, by whose they are: PRTE_MCA_, PMIX_MCA_ and OMPI_MCA_ in
    // their environment. --prtemca, --pmixmca and --omca name one each; --mca, --gmca, -am and
    // --tune go where their name says (mca_routing.h).
    std::vector<std::pair<std::string, std::string>> mca;       // --prtemca name value
    std::vector<std::pair<std::string, std::string>> pmix_mca;  // --pmixmca name value
    std::vector<std::pair<std::string, std::string>> ompi_mca;  // --omca name value
    Personality personality = Personality::ompi;
    Reports reports;
    // One line each for prun to print as "prun: note: ...": an older spelling that was accepted.
    std::vector<std::string> notes;
    StdinTarget stdin_target;
    // The signals prun passes on to every process of the job (--forward-signals; none: empty).
    std::vector<int> forward_signals = default_forwarded_signals();
    bool verbose = false;
    bool quiet = false;    // -q: no notes
    std::string report_pid;  // --report-pid: prun's pid to - (stdout), + (stderr) or a file
    // Finding the DVM: --num-connect-retries more tries, --wait-to-connect seconds apart.
    int connect_retries = 0;
    int connect_wait = 0;
    std::string help_topic;  // --help <option>: that option's page
    bool help = false;     // --help was given: print usage() and exit 0
    bool version = false;
};

// Parses argv (without argv[0]). Errors are one line, suitable for "prun: error: <message>".
Status parse(const std::vector<std::string>& args, Request& out);

// MPIEXEC_TIMEOUT (its value, or nullptr when unset), as mpirun 4.1 reads it: the job's timeout
// in seconds unless --timeout gave one (0 or empty: none). Adds a note when a timeout report was
// asked for without any timeout. An error names the variable and its value.
Status apply_mpiexec_timeout(const char* value, Request& request);

// Makes each app's relative --hostfile absolute against `cwd`, prun's working directory: the DVM
// reads the file, and from a working directory of its own.
void make_hostfiles_absolute(Request& request, const std::string& cwd);

// How many words follow `option` as its value (0 for a flag or an unknown word). prterun uses it
// to find the program among prun's options.
int option_value_words(const std::string& option);

// `prun --help <topic>`: the page of the option named `topic` (with or without dashes), or an
// error naming it.
Status option_help(const std::string& program, const std::string& topic, std::string& page);

// The --help text. `program` is "prun", or "prterun" whose options are prun's; `summary` replaces
// the first lines (before the option list) and `footer` the first line after it.
std::string usage(const std::string& program = "prun", const std::string& summary = {}, const std::string& footer = {});

// Checks a --map-by / --bind-to / --output value; public for the tests.
Status check_map_by(const std::string& value);
Status check_bind_to(const std::string& value);
// --map-by, --rank-by and --bind-to together: each readable, and not a combination PRRTE refuses.
Status check_placement(const Request& r);
Status parse_output(const std::string& value, OutputOptions& out);
// One file destination of --output or --output-filename: dir=DIR or file=PATH, with :nocopy
// (and :nojobid for dir=), or a bare nocopy / nojobid; `option` names it in errors.
Status parse_output_files(const std::string& option, const std::string& word, FileOutput& files);
// `notes` (optional) gets a line for a word accepted with a difference (map-devel, :parseable).
Status parse_display(const std::string& value, Reports& out, std::vector<std::string>* notes = nullptr);

}  // namespace prte::prun
