// The master's side of its daemons, shared by every launcher: ranks for new nodes, the command
// that starts a daemon, the call-home, the wireup broadcast, launching and killing across daemons,
// relaying their processes' states and output, and the teardown at shutdown.
//
// Launchers (plm components) only start processes on nodes: they take daemon_command() and run it
// there with the DVM secret on the daemon's standard input, and report daemon_failed() when one
// does not come up. Everything else about a daemon is here. All on the progress thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mca/grpcomm/grpcomm.h"
#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "rml/types.h"
#include "runtime/hw_topology.h"
#include "runtime/job_table.h"
#include "util/status.h"

namespace prte::plm::base {

// The master: starts listening for daemons with `options`, the messenger's for rank 0 (the
// program reads them from the core parameters: program/core_params.h), whose secret (made by
// rml::auth::make_secret()) becomes the DVM secret. Before the loop runs.
Status start_master_messaging(rml::Options options);
// The secret a launcher hands each daemon out of band (never on a command line).
const std::string& dvm_secret();

// Gives each node a daemon rank (the next free ones) and marks it as having a daemon.
std::vector<runtime::Rank> assign_daemons(const std::vector<runtime::Node*>& nodes);
// The words of the command that starts daemon `rank`: prted with the master's contact and the
// DVM's parameters, each word quoted for the remote shell.
std::vector<std::string> daemon_command(runtime::Rank rank);
// The same for a launcher that starts many daemons with one command (srun): the rank and the node
// name (prte_node_name; empty: the daemon's hostname) are shell words the node evaluates, such as
// "\"$r\"", inserted as they are; every other word is quoted.
std::vector<std::string> daemon_command_for_shell(const std::string& rank_word, const std::string& node_word);
// A launcher could not start daemon `rank` or it did not call home; `why` names the node and says
// what the launcher saw (its stderr). Ends a DVM start-up with that message.
void daemon_failed(runtime::Rank rank, const std::string& why);
// Daemon `rank` stopped answering (the heartbeat, plm_heartbeat.h): handled as its crash, with
// `why` as the account of its loss.
void daemon_unresponsive(runtime::Rank rank, const std::string& why);

// A line daemon `rank` on `node` (or its launch agent) printed: to the master's stderr, which is its
// log once the DVM is ready, as "[node] daemon N: line"; with a daemon log directory, appended to
// that daemon's own file there instead (prte --debug-daemons-file).
void relay_daemon_line(runtime::Rank rank, const std::string& node, const std::string& line);
// From now on each daemon's lines go to <dir>/prted.<rank>.<node>.log; empty: to stderr again.
void set_daemon_log_dir(std::string dir);
std::string daemon_log_path(runtime::Rank rank, const std::string& node);

// The hardware daemon `report.rank` reported, recorded on its node: `hw` from the XML it sent (one
// object per distinct text, shared through `cache`) and the counts from that; without XML (hwloc
// could not read that node) only the counts it sent. XML that hwloc cannot read is an error
// naming the daemon and the node, and leaves the node as it was.
Status record_topology(runtime::Node& node, const msg::DaemonReport& report, runtime::HwTopologyCache& cache);

// Who the daemons are, where and in what state: daemons() (plm_base.h), a DaemonTable
// (daemon_table.h). What follows acts on it.

// Records that a daemon left (once: false if it was already known gone), drops it from routing, and
// has the PMIx host answer the requests it relayed through it (HostServices::daemons_lost).
bool daemon_gone(runtime::Rank rank);
// Records that a daemon left without repairing the tree (a shrink campaign repairs once for all
// its targets); false if it was already known gone. Ends a teardown waiting for the last one.
bool record_departure(runtime::Rank rank);
// Detaches a node from its departed daemon so that a later grow can start a new one there
// (spec: collective-shrink-completion.txt, Step 2.3).
void reset_node(runtime::Node& node);
// Ends the jobs that had processes on `node`, which is gone: `why` names it. The processes there
// count as failed without waiting for a report that will never come. With `spare_recoverable`
// (a node lost while the DVM carries on), a job with recovery enabled is not ended: its processes
// there fail like any other.
void end_jobs_on_node(const runtime::Node* node, const std::string& why, bool spare_recoverable = false);

// Broadcast to every daemon; completes at once when there is none but the master.
Status broadcast(rml::Tag tag, rml::Payload payload, grpcomm::XcastCompletion on_complete = {});
// Kills the job's processes on every node.
void kill_job_procs(const runtime::JobPtr& job);
// Sends `signal` to the job's processes on every node (each to its process group, as odls does).
void signal_job_procs(const runtime::JobPtr& job, int signal);
// Starts a process of the job that failed and ended again, same rank, on its node, by its daemon
// (the master's own odls for its node). An error when its daemon cannot be reached.
Status restart_proc(const runtime::JobPtr& job, runtime::Proc& proc);
// Tells the daemons to forget a job that ended.
void release_job_on_daemons(const runtime::JobPtr& job);
// At shutdown, once no job is left: orders the daemons to exit and runs `then` when they have all
// gone (or after a grace period, with a warning naming those that did not).
void teardown_daemons(std::function<void()> then);

// The daemon job reached DAEMONS_REPORTED: broadcast the wireup, then VM_READY.
void wire_up(const runtime::JobPtr& daemon_job);
// Broadcasts the wireup (every wired daemon's contact and node, the rank span, the departed ranks)
// and runs `done` once the whole DVM has it.
Status broadcast_wireup(grpcomm::XcastCompletion done);

}  // namespace prte::plm::base
