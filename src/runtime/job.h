// A job (one prun submission, or the daemon job itself), its app contexts and its processes.
#pragma once

#include <pmix_common.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/loop_timer.h"
#include "runtime/node.h"
#include "runtime/preload.h"
#include "runtime/states.h"
#include "util/status.h"

namespace prte::runtime {

// One executable and its copies: `prun -n 4 ./a : -n 2 ./b` has two app contexts.
struct AppContext {
    int index = 0;
    std::string executable;
    std::vector<std::string> argv;
    std::vector<std::string> env;  // "NAME=value", added to the launch environment
    std::string working_dir;
    int num_procs = 0;  // 0 means "one per available slot", as PRRTE does without -n

    // --host / --hostfile restrict this app to those nodes (names as given; slot counts in
    // them do not change the pool); --add-host / --add-hostfile grow the DVM first.
    std::vector<std::string> hosts;
    std::string hostfile;
    std::vector<std::string> add_hosts;
    std::string add_hostfile;
    // This app's own --map-by words in an MPMD job (prun: a --map-by after a ':'), empty for the
    // job's. They replace the job's mapping words for this app only; ranking and binding stay the
    // job's (runtime/placement_spec.h, app_mapping). Read by the master alone: not on the wire.
    std::string map_by;
    // prun --preload-binary / --preload-files: what the daemons hosting this app's processes write
    // before they fork them (runtime/preload.h); in the launch message of those daemons only.
    std::vector<PreloadFile> preload;
};

struct Proc {
    Rank rank = kInvalidRank;
    int app_index = 0;
    Node* node = nullptr;
    int local_rank = 0;  // among this job's procs on the node
    int node_rank = 0;   // among all jobs' procs on the node
    ProcState state = ProcState::init;
    pid_t pid = 0;
    int exit_code = 0;    // exit status; 128+N when killed by signal N
    int term_signal = 0;  // the signal that ended it, 0 if it exited
    // Termination needs both (spec 7.4.4): the output pipes closed and the process reaped.
    bool iof_complete = false;
    bool waitpid_fired = false;
    bool counted_terminated = false;
    // Counted by the master's state machine (a daemon may report a state twice: state/prted).
    bool counted_running = false;
    bool counted_registered = false;
    ProcState counted_error = ProcState::init;  // the last error state counted
    // Times the master restarted it after a failure (prun --max-restarts, --continuous).
    int restarts = 0;
    // The last text the process asked the DVM to log (PMIx_Log): Open MPI 4.1 says why it aborts
    // that way just before PMIx_Abort, whose own message is "N/A" (pmix/upcalls.cc).
    std::string last_logged;
    // Where placement (rmaps/base) bound it: the CPUs in hwloc's list form (OS indices, as
    // Cpus_allowed_list shows them), empty when unbound; and how to say it ("core 2 (cpus 4-5)").
    std::string cpuset;
    std::string binding;
    bool cpus_counted = false;  // its CPUs are in its node's pu_load (to give back once)
};

// A process that ended is about to be started again (prun --max-restarts): what its last life
// left is forgotten, but for what the master counted once per rank (running, registered).
inline void forget_ended_life(Proc& proc)
{
    proc.state = ProcState::running;
    proc.pid = 0;
    proc.exit_code = 0;
    proc.term_signal = 0;
    proc.iof_complete = false;
    proc.waitpid_fired = false;
    proc.counted_terminated = false;
}

// Both appended to, never reordered: the values travel in launch messages.
enum class MapBy { unset, slot, node, core, package, numa, hwthread, ppr, seq, l1cache, l2cache, l3cache, rankfile, pe_list };
enum class RankBy { unset, slot, node, fill, span, hwthread, core, l1cache, l2cache, l3cache, numa, package };
// Appended to, never reordered: the values travel in launch messages.
enum class BindTo { unset, none, hwthread, core, numa, package, l1cache, l2cache, l3cache };

const char* to_string(MapBy policy);
const char* to_string(RankBy policy);
const char* to_string(BindTo policy);

struct MappingPolicy {
    MapBy by = MapBy::unset;
    RankBy rank_by = RankBy::unset;
    BindTo bind_to = BindTo::unset;
    // Explicit user choice; unset means the mapper's default (PRRTE: allowed only when the
    // slot counts were not given by the user or the resource manager).
    std::optional<bool> oversubscribe;
    int ppr_count = 0;        // ppr:N:<object>
    MapBy ppr_object = MapBy::unset;
    int span = 0;
    // --bind-to <level>:overload-allowed: more processes on an object than it has CPUs is no error.
    bool bind_overload_allowed = false;
    // --bind-to <level>:if-supported: a node without that level runs the process unbound.
    bool bind_if_supported = false;
    // --map-by ...:NOINHERIT (false) / :INHERIT (true): whether jobs this job's processes spawn take
    // its placement directives (the default: they do).
    std::optional<bool> inherit;
    // :PE=n: each process gets n CPUs (cores, or hwthreads with :HWTCPUS), bound to all of them.
    int pes_per_proc = 0;
    // --rank-by <object>:SPAN: ranks go round the objects of all nodes, not node by node.
    bool rank_span = false;
    // :HWTCPUS: hwthreads count as CPUs (slots from hwthreads, binding to hwthreads); :CORECPUS
    // (the default) is false.
    bool hwtcpus = false;
    // :NOLOCAL: no process on the node of the tool that launched the job.
    bool nolocal = false;
    // :DONOTLAUNCH: map (and report) the job, then end it without starting a process.
    bool donotlaunch = false;
    // :FILE=<path> for seq and rankfile (an absolute path the master can read).
    std::string file;
    // pe-list=a,b-c: the CPUs (logical ids: cores, or hwthreads with :HWTCPUS) every process is
    // confined to, on each node; with :ORDERED each process gets one of them in turn.
    std::vector<int> pe_list;
    bool pe_list_ordered = false;
    // --bind-to is the job's own (:report and the rest do not make it so).
    bool bind_given() const { return bind_to != BindTo::unset; }
};

// How a job's output reaches the tool that launched it (prun --output ...).
struct OutputOptions {
    bool tag = false;            // "[job,rank]<stdout>: " before every line
    bool timestamp = false;      // wall-clock time before every line
    bool merge_stderr = false;   // stderr delivered as stdout
    bool held_for_pull = false;  // held until the spawner pulls it (pmix/attributes.h)
    // Each chunk names its writer's node and pid (PMIX_HOSTNAME, PMIX_PROC_PID) for the tool's
    // "[job,rank][host:pid]" tags (prun --output tag-detailed).
    bool tag_detailed = false;
};

// What the DVM reports on a job for its spawner (prun --display map,allocation, --report-bindings):
// the map and the allocation as text on the spawner's stdout once the job is mapped, before it
// launches (plm/base/plm_reports.h); the bindings by each process on its stderr as it starts.
struct JobReports {
    bool map = false;
    bool allocation = false;
    bool bindings = false;
    // --display topo[=host;host]: each node's hardware as the master holds it, after the
    // allocation and before the map; `topology_hosts` empty means every node of the DVM.
    bool topology = false;
    std::vector<std::string> topology_hosts;
    // --display cpus[=host;host]: each node's available CPUs by package, after the topology and
    // before the map; `cpus_hosts` empty means every node of the DVM.
    bool cpus = false;
    std::vector<std::string> cpus_hosts;
    // --display ...:physical: the bindings shown (Proc::binding) name objects and CPUs by the
    // OS's ids ("core P#4") instead of hwloc's logical ones.
    bool physical = false;
    // prun --output xml: the reports are XML elements (PRRTE's <map>, <allocation>...) for the
    // tool's XML document, instead of text.
    bool xml = false;
};

// Which processes read the stdin the spawner forwards (prun --stdin; PMIX_STDIN_TGT); the others
// read /dev/null. `none` by default: a spawner that never forwards stdin (MPI_Comm_spawn, a tool
// whose stdin is closed) must not leave a process blocked for ever in read(). prun asks for
// rank 0 unless told otherwise, which is PRRTE's default as the user sees it.
struct StdinTarget {
    enum class Kind { none, rank, all };
    Kind kind = Kind::none;
    Rank rank = 0;  // with Kind::rank

    bool includes(Rank r) const { return kind == Kind::all || (kind == Kind::rank && r == rank); }
};

// Which process-management interface a job's processes are given (prun --mpi, Slurm's spelling).
// automatic: PMIx and, when a pmi component is selected, the PMI-1/PMI-2 wire protocol beside it,
// so that Open MPI and MPICH programs both run as one job. Appended to, never reordered: the
// values travel in launch messages.
enum class MpiInterface : uint8_t { automatic, pmix, pmi1, pmi2, none };

const char* to_string(MpiInterface mpi);
// "pmix", "pmi1", "pmi2", "none" (and "auto"); nullopt for anything else.
std::optional<MpiInterface> parse_mpi_interface(const std::string& text);

// Why a live job does not move on (docs/elastic.md, "Admission"). A job that waits is in the
// passive state JobState::waiting_for_daemons, held at one of the DVM's admission points, and only
// the one that holds it moves it on: activations posted before it began to wait are dropped
// (runtime/state_machine.cc). Each reason has one owner (src/elastic/):
//   fence_at_map, fence_at_launch  the launch fence: a size change (any, at the map boundary; a
//                                  shrink, at the launch boundary) is under way (launch_fence.cc)
//   autoscaler_turn                prte_autoscale: behind earlier jobs waiting for nodes
//   autoscaler_nodes               prte_autoscale: for the nodes a grow brings (autoscaler.cc)
//   test_hold                      prte_test_hold_launch, tests only (launch_fence.cc)
//   queue                          prte_queue / prun --queue: for slots other jobs hold (job_queue.cc)
enum class WaitReason : uint8_t { none, fence_at_map, fence_at_launch, autoscaler_turn, autoscaler_nodes, test_hold, queue };

// In words, as pstat, --display and the log say it: "waiting in the queue for slots other jobs hold".
const char* to_string(WaitReason reason);

struct Job {
    std::string nspace;
    JobState state = JobState::init;
    std::vector<AppContext> apps;
    std::vector<std::unique_ptr<Proc>> procs;
    MappingPolicy mapping;
    OutputOptions output;
    JobReports reports;
    StdinTarget stdin_target;
    MpiInterface mpi = MpiInterface::automatic;
    int timeout_seconds = 0;  // prun --timeout: abort the job after this long (0: none)
    // What the --timeout timer gathers before it ends the job (plm/base/plm_timeout.h):
    // --report-state-on-timeout (PMIX_TIMEOUT_REPORT_STATE) and --get-stack-traces
    // (PMIX_TIMEOUT_STACKTRACES).
    bool timeout_report_state = false;
    bool timeout_stack_traces = false;
    // prun --spawn-timeout (PMIX_SPAWN_TIMEOUT): fail the job if it is not running this long after
    // it was submitted (0: none).
    int spawn_timeout_seconds = 0;
    // prun --queue (or the DVM's prte_queue): a job whose mapping fails only because other jobs
    // hold the slots waits in the DVM's queue for them (src/elastic/job_queue.h) instead of
    // failing; prun --queue-timeout: it ends if still queued after this long (0: never).
    bool queue = false;
    int queue_timeout_seconds = 0;
    // prun --enable-recovery (PMIX_JOB_RECOVERABLE): a process that dies or exits non-zero does
    // not end the job; its peers are told (PMIx event) and carry on.
    bool recoverable = false;
    // prun --runtime-options error-nonzero-status=false (pmix::kErrorNonzeroStatus): a process
    // that exits non-zero (not one killed by a signal) does not end the job.
    bool error_nonzero_status = true;
    // prun --max-restarts N, --runtime-options autorestart (PMIX_MAX_RESTARTS): a process that
    // fails is started again, same rank on the same node, up to this many times each; -1: without
    // limit (--continuous alone). prun --continuous (PMIX_JOB_CONTINUOUS): also, once a process
    // may not be restarted again, the job carries on without it (as recoverable).
    int max_restarts = 0;
    bool continuous = false;
    bool is_daemon_job = false;

    // The tool or process that asked for the job (PMIx spawn), told of its start and its end.
    std::optional<pmix_proc_t> originator;
    // The spawning tool's own process, when it said (prun): the DVM ends the job if that process
    // dies without ending it (pmix/spawner_watch.cc).
    pid_t spawner_pid = 0;
    std::string spawner_host;
    // A job spawned by a process ends when its parent job ends, as under PRRTE 3, unless the
    // spawn asked for a separate lifetime (PMIX_SPAWN_CHILD_SEP, pmix/attributes.h).
    bool outlives_parent = false;
    // Ended normally while jobs its processes spawned still run: its end is announced (to its
    // spawner, with the last of the tree's output) once they have ended (state/dvm).
    bool awaiting_children = false;
    // PMIX_REPORT_CHILD_SEP (prun --report-child-jobs-separately): the end reported to the job's
    // spawner carries its own status only. Otherwise (PMIx's default, mpirun's), a job whose own
    // status is 0 reports the first failure among the jobs its processes spawned, below it in
    // the tree, that ended on their own while it ran: `children_exit_code` and `children_failure`.
    bool report_children_separately = false;
    int children_exit_code = 0;
    std::string children_failure;
    // Answers the spawn request once the job is running (success, nspace) or has failed to start.
    // Called once, on the progress thread; cleared after.
    std::function<void(const Status& status, const std::string& nspace)> on_spawned;

    int num_launched = 0;
    int num_reported = 0;    // procs registered with their PMIx server
    int num_terminated = 0;
    int exit_code = 0;       // the job's exit status, as prun exits with it
    std::string abort_message;  // why it ended abnormally: names rank, node and status or signal
    // Set when the job is being torn down (a process failed, a timeout, a kill request): the
    // remaining processes are being killed and their own exits no longer change the outcome.
    bool aborting = false;
    // Why it waits, if it does (WaitReason above; spec: elastic-dvm-spec.txt, "Parked job").
    WaitReason waiting = WaitReason::none;
    JobState abort_state = JobState::aborted;  // the error state the job ends in when aborting
    // The --timeout timer (plm/base arms it at launch): the job's own, so it is cancelled when the
    // job table forgets the job, or with the job, never left armed after it.
    LoopTimer timeout_timer;
    // The --spawn-timeout timer, the job's own likewise: armed at submission, cancelled once running.
    LoopTimer spawn_timer;
    // Ended by one of its timeouts: its status is ETIMEDOUT (110, as mpirun's), and a spawner whose
    // request it was is answered PMIX_ERR_TIMEOUT.
    bool timed_out = false;

    bool waits() const { return waiting != WaitReason::none; }
    size_t num_procs() const { return procs.size(); }
    Proc* proc(Rank rank) { return rank < procs.size() ? procs[rank].get() : nullptr; }
    // Processes that daemon `daemon` forked and has not reaped yet.
    bool has_live_procs_on(Rank daemon) const
    {
        for (const auto& p : procs) {
            if (p->node && p->node->daemon == daemon && p->pid > 0 && !p->waitpid_fired) return true;
        }
        return false;
    }
};

}  // namespace prte::runtime
