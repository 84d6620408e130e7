// The PMIx server host: every daemon (the master too) runs a PMIx server for its local processes;
// only the master accepts tool connections (prun, pterm, pps, pquery, pevent).
//
// This is the runtime's side of PMIx: it starts the server with our upcall module, registers each
// job's namespace with the information clients and Open MPI expect, and turns the upcalls into
// runtime work on the progress thread (spawn -> a new job; client connected/finalized/abort ->
// process states; fence -> data exchange; job control -> terminate a job or the DVM; ...).
// Only PMIx's public API is used (DESIGN.md, "PMIx").
#pragma once

#include <pmix_common.h>

#include <functional>
#include <string>
#include <vector>

#include "mca/base/param.h"
#include "runtime/host_services.h"
#include "runtime/job_table.h"
#include "util/status.h"

namespace prte::pmix {

// This host's functions as the services the frameworks' components use (runtime/host_services.h);
// the program's wiring installs them in the Runtime.
runtime::HostServices host_services();

// The host's parameters (pmix_server_verbose, pmix_server_repairs): registered by every program's
// setup_mca, so that prte_info and the bash completion list them.
void register_params(mca::ParamRegistry& registry);

struct ServerOptions {
    bool tool_support = false;  // the master: accept tools, write the rendezvous files
    std::string tmpdir;         // PMIX_SERVER_TMPDIR for this server's client rendezvous
};

// Starts the PMIx server (PMIx_server_init). Call from the main thread before the progress thread
// starts. The server's own identity is {dvm_nspace, rank}.
Status start(const ServerOptions& options);
// Answers every request this daemon relayed to the master and still waits on with
// PMIX_ERR_UNREACH (pending_relays.h), then stops the server.
void stop();

// Daemon: the daemons lost (a connection closed, the master's notice of a loss elsewhere; the
// master itself is rank 0). Requests relayed to the master along a way through one of them are
// answered PMIX_ERR_UNREACH, as their reply may never come (pending_relays.h). Progress thread.
void daemons_lost(const std::vector<runtime::Rank>& daemons);
// A job spawned for a process that asked through another channel than PMIx (a PMI spawn), as
// PMIx_Spawn from it would be (runtime::HostServices::spawn). Progress thread.
void spawn_for_process(const pmix_proc_t& requester, const std::vector<runtime::AppContext>& apps,
                       std::function<void(const Status&, const std::string&)> done);

// A PMI process's publish, lookup or unpublish of one service name, served from the store
// PMIx_Publish uses (publish.cc; runtime::HostServices::names). Progress thread.
void serve_names(const pmix_proc_t& requester, runtime::NameOp op, const std::string& service,
                 const std::string& port, std::function<void(pmix_status_t, const std::string&)> done);

// The URI tools connect to (PMIX_SERVER_URI); empty before start().
const std::string& uri();

// Registers the job's namespace and its processes on this node with the local PMIx server, so
// they can PMIx_Init; must be complete before they are forked. Call on the progress thread: the
// registration data is read from the job at once, PMIx then registers asynchronously, and `done`
// runs on the progress thread (posted, never inline) with the outcome. The launch path uses this.
void register_job(const runtime::JobPtr& job, std::function<void(const Status&)> done);
// The blocking form, for a thread that is NOT the progress thread (it refuses to run there, where
// it would deadlock) and that has the job to itself meanwhile (start-up, tests).
Status register_job(const runtime::JobPtr& job);
// Forgets the namespace (PMIx_server_deregister_nspace) and removes its PMIX_NSDIR. Progress thread.
void deregister_job(const runtime::JobPtr& job);

// Environment a child needs to connect to this server (PMIx_server_setup_fork) for `rank` of job;
// appended to `env` as "NAME=value". Any thread.
Status setup_fork(const runtime::JobPtr& job, runtime::Rank rank, std::vector<std::string>& env);

// Forwards a chunk of a process's output to the tools that want it (PMIx_server_IOF_deliver).
// `channel` is PMIX_FWD_STDOUT_CHANNEL or PMIX_FWD_STDERR_CHANNEL; an empty chunk marks the end.
// The data is copied; PMIx keeps output that arrives before a tool has asked for it (the spawn
// answer comes only once the job runs) and hands it over then. Rank PMIX_RANK_UNDEF marks the
// DVM's own report on the job (kDvmReport), which the tool prints untagged. Progress thread.
void deliver_output(const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel,
                    const char* data, size_t size);

// On a daemon, output goes to the master instead of this node's PMIx server (tools connect to the
// master only): the daemon installs where it goes. Empty chunks (a stream's end) are not passed.
using OutputForwarder = std::function<void(const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel,
                                           const char* data, size_t size)>;
void set_output_forwarder(OutputForwarder forwarder);

// Serves other daemons and asks them, over the messenger: processes' data (direct modex) and
// stdin for processes on their nodes. Call once
// the messenger runs, on the master and on every daemon.
void enable_remote_services();
// Master: output a daemon forwarded. Delivered like local output, and acknowledged to the daemon
// as the tool takes it, so a daemon never has more than a window of output in flight.
void deliver_remote_output(const runtime::Job& job, runtime::Rank daemon, pmix_iof_channel_t channel,
                           runtime::Rank rank, const char* data, size_t size);

// Output flow control (output_flow.cc). PMIx takes every chunk it is handed, however fast it
// comes (a `yes` once grew the DVM to 24 GB). output_backlogged(job) is true while too much of
// the job's output waits; `resume` runs on the progress thread once it has drained (at once if it
// has already).
// Per job: a job whose spawner acknowledges its output (attributes.h) is also held to a window
// of unacknowledged bytes.
bool output_backlogged(const runtime::Job& job);
void when_output_drains(const runtime::Job& job, std::function<void()> resume);

// Marks the end of all of a job's output (see events.cc); call once every process's streams have
// closed, before notify_job_end. Progress thread.
void deliver_output_complete(const runtime::Job& job);

// Runs `then` once the job's output is no longer held for its spawner (at once when it is not),
// so that the end of a job is never announced before its output. Progress thread.
void when_output_released(const runtime::JobPtr& job, std::function<void()> then);

// The outcome of a size change, for its requester (spec: elastic-dvm-spec.txt, "Asynchronous
// size-change completion"): PMIX_DVM_IS_READY or PMIX_ERR_DVM_MOD, directed to the requester on
// whatever node it runs (relayed to that node's daemon), where <pmix.h> defines the codes; with
// a PMIx that does not, no event (the allocation status query says the same). Master, progress
// thread.
using AllocationOutcome = runtime::AllocationOutcome;
void notify_allocation_outcome(const AllocationOutcome& outcome);

// Tells the job's originator (and anyone registered) that the job has ended
// (PMIX_EVENT_JOB_END with PMIX_JOB_TERM_STATUS and, on failure, the message). Progress thread.
void notify_job_end(const runtime::JobPtr& job);
// Tells every registrant in the DVM that every process of the job has started
// (PMIX_EVENT_JOB_START, then PMIX_LAUNCH_COMPLETE). Progress thread, master.
void notify_job_start(const runtime::JobPtr& job);

// Tells processes on every node that registered for `code` (PMIX_ERR_PROC_ABORTED_BY_SIG,
// PMIX_ERR_EXIT_NONZERO_TERM, ...) that this process ended abnormally, naming it in
// PMIX_EVENT_AFFECTED_PROC. Master, progress thread.
void notify_proc_failure(const runtime::Job& job, const runtime::Proc& proc, pmix_status_t code,
                         const std::string& message);

// A process of this node has ended (it was reaped), `abnormally` when killed or exiting non-zero.
// Its requests relayed to the master and still waiting are answered PMIX_ERR_LOST_CONNECTION.
// Collectives it never took part in end with PMIX_ERR_PROC_TERM_WO_SYNC instead of waiting for it:
// the group constructs and destructs of its node's other members (which PMIx 4.2.2 leaves waiting)
// and, when it ended abnormally, or such a group operation was ended, or it was a member of a
// group constructed with PMIX_GROUP_NOTIFY_TERMINATION and not destructed (whose other members
// then hear PMIX_GROUP_MEMBER_FAILED), every collective over it on any node (grpcomm). Progress
// thread.
void process_ended(const runtime::Job& job, runtime::Rank rank, bool abnormally);

// This node's processes of the job are about to be killed: collectives among them that PMIx's
// server has not handed to the DVM are held, so that the end of their connections cannot complete
// one twice (a PMIx 4.2.2 defect, pmix422/repairs.h); waits (at most a second) until PMIx's thread
// has done so. Progress thread.
void job_killing(const runtime::Job& job);

}  // namespace prte::pmix
