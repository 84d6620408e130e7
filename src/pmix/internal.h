// What the files of the PMIx server host share and nothing else sees: the verbose stream, our
// own PMIx identity, the upcall entry points that make up the module, and small helpers.
//
// Threading: every upcall runs on PMIx's own progress thread. It may read its arguments and
// copy them, nothing more; anything that touches runtime state is post()ed to the runtime's
// progress thread first (DESIGN.md, "Execution model"), and the PMIx callback is called from
// there when the work is done (PMIx thread-shifts callbacks itself, so any thread may call them).
#pragma once

#include <pmix_server.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <vector>

#include "mca/grpcomm/grpcomm.h"
#include "pmix/groups/groups.h"
#include "pmix/info_array.h"
#include "pmix/pending_relays.h"
#include "runtime/job_table.h"
#include "util/output.h"
#include "util/status.h"

namespace prte::pmix::detail {

// The reason a process gave in its last PMIx_Log, for its PMIx_Abort's line (log_request.cc).
std::string logged_abort_reason(const runtime::Proc& proc);

// pmix_server_verbose: 1 errors and refusals, 2 jobs and tools, 5 every upcall, 10 data detail.
const output::VerboseStream& verbose();
void set_verbose_level(int level);

// {dvm_nspace, daemon rank}: the source of the events we raise. Valid after start().
const pmix_proc_t& server_proc();
bool server_running();

// The requests this daemon relayed to other daemons and whose reply it waits for
// (pending_relays.h), and the daemons a message to `daemon` (the master) passes on its way there
// and back (that daemon included), which is what such a request's reply may be lost with.
// Progress thread.
PendingRelays& relays();
// Answers relayed request `id` with the reply daemon `from` sent about it (`what`: "spawn reply",
// ...); a reply for a request already answered (failed when its way was lost) is ignored, and
// said so on the pmix_server stream.
void answer_relayed(uint64_t id, RelayAnswer reply, const char* what, runtime::Rank from);
std::vector<runtime::Rank> route_to_daemon(runtime::Rank daemon);
std::vector<runtime::Rank> route_to_master();

// Runs `work` on the runtime's progress thread. Work posted once the loop has stopped (the
// runtime shutting down) is refused, and the loop says so; the PMIx callbacks it would have called
// are then never called, which is harmless as the server is going away with it.
void post(std::function<void()> work);

pmix_status_t to_pmix_status(const Status& status);

// Raises `code` from the DVM itself (server_proc()) through this node's PMIx server, which hands
// it to its processes in `range`; events from the DVM are not relayed to other daemons
// (event_relay.cc). `what` names the event in the log line when PMIx refuses it.
void notify_from_dvm(pmix_status_t code, pmix_data_range_t range, std::unique_ptr<InfoArray> info,
                     const std::string& what);

// The job a PMIx namespace names; the daemon job for the DVM's own namespace. Progress thread.
runtime::JobPtr find_job(const std::string& nspace);
// True for the DVM's own namespace ("prte-<host>-<pid>") and its daemon job ("...@0").
bool is_dvm_nspace(const std::string& nspace);
// True when every process `procs` names (a rank, or the wildcard for a whole job) runs on this
// node, so a collective over them needs no other daemon. Unknown namespaces count as remote.
bool all_local(const pmix_proc_t procs[], size_t nprocs);
// How many of the processes (a wildcard rank counts its job's) run on this node.
size_t count_here(const pmix_proc_t procs[], size_t nprocs);
// The processes of job `nspace` on this node (none for an unknown job). Progress thread.
std::vector<pmix_proc_t> local_procs_of(const std::string& nspace);
// Each process the members name, with its entry in the job map (a member of rank
// PMIX_RANK_WILDCARD names every rank of its job; one of no job of this DVM names none).
void for_each_member(const std::vector<pmix_proc_t>& members,
                     const std::function<void(const pmix_proc_t&, const runtime::Proc&)>& fn);
// "pterm (pid 1234)" for a connected tool, "rank 3 of prte-x-1@2" for a client; progress thread.
std::string requestor_name(const pmix_proc_t& proc);

// Stdin for a process on another daemon's node goes to that daemon, which answers once its
// launcher accepted it (remote_services.cc); false when the process is on this node. Answered
// PMIX_ERR_UNREACH instead when that daemon, or one on the way, is lost (relays()).
bool forward_stdin(const runtime::JobPtr& job, runtime::Rank rank, const std::string& data, bool eof,
                   std::function<void(const Status&)> done);
// The stdin bytes forwarded to each process of another node ("nspace:rank") and not accepted yet.
std::map<std::string, size_t>& stdin_in_flight();

// Tools (tools.cc).
void tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata);
pmix_status_t job_control(const pmix_proc_t* requestor, const pmix_proc_t targets[], size_t ntargets,
                          const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata);

// Clients and the rest (upcalls.cc).
pmix_status_t client_connected(const pmix_proc_t* proc, void* server_object, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t client_connected_v1(const pmix_proc_t* proc, void* server_object, pmix_op_cbfunc_t cbfunc,
                                  void* cbdata);
pmix_status_t client_finalized(const pmix_proc_t* proc, void* server_object, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t client_abort(const pmix_proc_t* proc, void* server_object, int status, const char msg[], pmix_proc_t procs[],
                    size_t nprocs, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range,
                           pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t register_events(pmix_status_t* codes, size_t ncodes, const pmix_info_t info[], size_t ninfo,
                              pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t deregister_events(pmix_status_t* codes, size_t ncodes, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t iof_pull(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                       pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t push_stdin(const pmix_proc_t* source, const pmix_proc_t targets[], size_t ntargets,
                         const pmix_info_t directives[], size_t ndirs, const pmix_byte_object_t* bo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata);
void log_request(const pmix_proc_t* client, const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
         size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata);
// Allocation requests (allocation.cc): on the master handed to the elastic DVM, on a daemon
// relayed to the master.
void enable_allocation_relay();
void enable_alloc_status_relay();
// Why the requester's last allocation request was refused (once: it is forgotten when read).
std::optional<std::string> take_refusal(const pmix_proc_t& requester);
pmix_status_t allocate(const pmix_proc_t* client, pmix_alloc_directive_t directive, const pmix_info_t data[],
                       size_t ndata, pmix_info_cbfunc_t cbfunc, void* cbdata);

// Collectives (collectives.cc). A collective over PMIx processes, as the host knows it: what
// grpcomm::Signature says (grpcomm.h), the processes as PMIx names them. exchange() is the one
// place a collective crosses daemons: with every participant here and no context id wanted it
// answers at once with `contribution`, otherwise it is the grpcomm allgather (the daemons'
// contributions one after the other); signature() is what grpcomm is handed (also to cancel one).
// `ended`: the participant that ended before it took part, with Errc::peer_ended; `left_out`:
// those an optional collective went on without (grpcomm.h).
struct Collective {
    std::vector<pmix_proc_t> procs;
    std::string id;
    bool assign_context_id = false;
    std::chrono::milliseconds time_limit{0};
    bool optional = false;
    bool watch_normal_ends = false;
};
grpcomm::Signature signature(const Collective& collective);
using ExchangeDone = std::function<void(const Status& status, rml::Payload combined, uint64_t context_id,
                                        const pmix_proc_t* ended, const std::vector<pmix_proc_t>& left_out)>;
void exchange(const Collective& collective, rml::Payload contribution, ExchangeDone done);
std::vector<pmix_proc_t> copy_procs(const pmix_proc_t procs[], size_t nprocs);
// The caller's PMIX_TIMEOUT as a collective's time limit (0: none), a little short of it: see
// collectives.cc.
std::chrono::milliseconds time_limit(const pmix_info_t info[], size_t ninfo);
std::string describe_all(const std::vector<pmix_proc_t>& procs);
pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata);
pmix_status_t direct_modex(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                           pmix_modex_cbfunc_t cbfunc, void* cbdata);
pmix_status_t connect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                      pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t disconnect_procs(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata);
// PMIx groups: src/pmix/groups/groups.h, included above.
// A job this daemon was told to kill is deregistered (process_ended.cc).
void forget_killed_job(const std::string& nspace);

// Spawn (spawn.cc) and queries (query.cc).
pmix_status_t spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                    size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata);
// What a spawn answers, on the progress thread: the launch path's verdict and the new namespace.
using SpawnAnswer = std::function<void(const Status& status, const std::string& nspace)>;
pmix_status_t spawn_status(const Status& st);
// Progress thread, master only: creates the job from a translated request and starts it.
// Master: ends the job if its spawner (a prun on this host, by pid) dies first (spawner_watch.cc).
void watch_spawner(const runtime::Job& job);
void submit_spawn(const pmix_proc_t& requester, const runtime::Job& draft, const std::vector<std::string>& notes,
                  SpawnAnswer answer);
// On a daemon (PMIx's thread): sends the request to the master, answers cbfunc with its reply
// (spawn_relay.cc). The master's side is set up by enable_remote_services().
pmix_status_t relay_spawn(const pmix_proc_t& requester, const pmix_info_t job_info[], size_t ninfo,
                          const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata);
void enable_spawn_relay();
// Output flow between daemons and the master (output_relay.cc). Daemon: count_forwarded for
// each chunk sent to the master; relay_backlogged while too much is not taken yet; wait_for_relay
// keeps `resume` (and returns true) when it must wait. Master: received_from_daemon for each chunk.
void count_forwarded(const std::string& nspace, size_t bytes);
bool relay_backlogged(const std::string& nspace);
bool wait_for_relay(const std::string& nspace, std::function<void()>& resume);
void received_from_daemon(const runtime::Job& job, runtime::Rank daemon, size_t bytes);
void forget_relay(const std::string& nspace);
void enable_output_relay();
// PMIx_Publish/Lookup/Unpublish (publish.cc): one store on the master; daemons relay to it.
pmix_status_t publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                      void* cbdata);
pmix_status_t lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                     pmix_lookup_cbfunc_t cbfunc, void* cbdata);
pmix_status_t unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                        pmix_op_cbfunc_t cbfunc, void* cbdata);
void forget_published(const std::string& nspace);
void enable_publish_relay();
// Events across the DVM (event_relay.cc): relay_event sends an event PMIx already delivered on
// this node to every other daemon's server, unless its range stays on the node (false then).
// Any thread.
bool relay_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range, const pmix_info_t info[],
                 size_t ninfo);
// Notifies an event the DVM raises on every node, this one included (each server applies the
// range to its own processes); a daemon other than the master sends it to the master, which
// broadcasts it. False if its info cannot be packed. Progress thread.
bool raise_everywhere(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range, InfoArray& info);
// Daemon-to-daemon messages for every daemon (event_relay.cc). broadcast_to_daemons(): the master
// broadcasts `payload` under tag `all` (grpcomm xcast). to_every_daemon(): from any daemon: the
// master broadcasts it itself, another daemon sends it to the master under `relay`, whose handler
// passes it to broadcast_to_daemons. Progress thread.
Status broadcast_to_daemons(rml::Tag all, const rml::Payload& payload);
Status to_every_daemon(rml::Tag relay, rml::Tag all, rml::Payload payload);
void enable_event_relay();
// Master: when the job's originator is a process on a daemon's node, sends it the job's end for
// that daemon to notify (true), else false.
bool relay_job_end(const runtime::Job& job);
// Notifies PMIX_EVENT_JOB_END for `nspace` through this node's server (events.cc).
void notify_job_end_event(const std::string& nspace, int exit_code, const std::string& message,
                          const std::optional<pmix_proc_t>& originator);
pmix_status_t query(pmix_proc_t* proc, pmix_query_t* queries, size_t nqueries, pmix_info_cbfunc_t cbfunc,
                    void* cbdata);

// Registers the DVM's own namespace (register.cc); asynchronous, nothing waits for it.
void register_dvm_nspace();

// Output held for a spawner that will pull it (output_hold.cc). Progress thread, except
// on_pull_request (PMIx's thread).
void hold_output(const std::string& nspace);
// `held_as` is the job whose hold it joins: `job` itself, or the root of its job tree when its
// output is delivered as the root's (events.cc, output_sink).
bool hold_chunk(const std::string& held_as, const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel,
                const char* data, size_t size);
void on_pull_request(const pmix_proc_t procs[], size_t nprocs);
// Whether more than the hold's limit of the job's (tree's) output waits for its spawner; then
// wait_for_hold runs `resume` once the spawner asks (or the hold otherwise ends) and says true.
bool hold_backlogged(const runtime::Job& job);
bool wait_for_hold(const runtime::Job& job, std::function<void()> resume);
void forget_hold(const std::string& nspace);
// The spawner that would pull the job's output is gone (spawner_watch.cc): the output goes to PMIx
// now, and the job's end, waiting on it, follows, instead of after the hold's 10 s limit.
void release_output(const std::string& nspace, const char* why);
// Hands one chunk of `writer`'s output to PMIx as `delivered_as`'s (the writer itself, or the root
// of its job tree), with kOutputSource naming the writer when they differ (events.cc).
void send_output(const std::string& writer, const std::string& delivered_as, runtime::Rank rank,
                 pmix_iof_channel_t channel, const char* data, size_t size);

// Output flow control (output_flow.cc).
void track_acks(const std::string& nspace);
void count_sent(const std::string& nspace, size_t bytes);
void handed_to_pmix(size_t bytes);
void released_by_pmix(size_t bytes);  // any thread
void output_acked(const std::string& nspace, uint64_t total);
void forget_flow(const std::string& nspace);

}  // namespace prte::pmix::detail
