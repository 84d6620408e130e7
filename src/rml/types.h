// Names the messaging layer and the frameworks above it share: message tags and payloads.
#pragma once

#include <cstdint>
#include <vector>

namespace prte::rml {

using Tag = uint32_t;

// Message tags. Values are part of the daemon-to-daemon protocol; never renumber.
// The wire protocol's version, exchanged in every connection's greeting: daemons of different
// versions refuse each other with a message naming both. Raise it with every change a daemon of
// the previous version could not read - a tag added, removed or renumbered, a message's layout -
// and record it in wire_versions.txt beside this file (the test wire_version fails when the tags
// change and the version does not).
// 2: the accepting side's answer carries its rank, covered by its proof.
// 3: a job's launch message names the process that spawned it.
// 4: binding levels l1cache..l3cache, binding qualifiers and the mapping policy in a launch message.
// 5: the process-management interface a job asked for (prun --mpi) in a launch message.
// 6: a daemon's call home carries its hwloc topology as XML; the launch message carries each
//    process's CPUs (Proc::cpuset, binding), chosen by the master.
// 7: the heartbeat (prte_daemon_heartbeat_timeout): heartbeat, daemon_silent, declared_lost.
// 8: a timed-out job's stack traces (prun --get-stack-traces): the daemon command stack_traces and
//    its answer, stack_traces.
// 9: a daemon's call home names its machine (host name and boot id), so that the master knows
//    which nodes share one machine's CPUs; the daemon command restart_procs (prun --max-restarts,
//    --continuous).
// 10: a launch message's apps carry their preloaded files (prun --preload-binary, --preload-files),
//     for a daemon hosting processes of the job (sent to each daemon then, not broadcast).
inline constexpr uint32_t kProtocolVersion = 10;

namespace tag {
inline constexpr Tag daemon = 1;          // commands to daemons (incl. the shrink order)
inline constexpr Tag daemon_report = 2;   // a new daemon calls home
inline constexpr Tag wireup = 3;          // nidmap + contact info; processed before forwarding
inline constexpr Tag daemon_died = 4;     // processed before forwarding
inline constexpr Tag launch_apps = 5;
inline constexpr Tag plm = 6;             // launch progress to the master
inline constexpr Tag xcast_ack = 7;
inline constexpr Tag allgather = 8;
inline constexpr Tag iof = 9;
inline constexpr Tag direct_modex = 10;
inline constexpr Tag xcast = 11;              // grpcomm's envelope around a broadcast message
inline constexpr Tag allgather_release = 12;  // an allgather's combined data, broadcast
inline constexpr Tag direct_modex_reply = 13;
inline constexpr Tag stdin_data = 14;         // a tool's stdin for a process on another node
inline constexpr Tag stdin_ack = 15;          // that daemon accepted it (flow control)
inline constexpr Tag spawn_request = 16;      // a process's PMIx_Spawn, relayed to the master
inline constexpr Tag spawn_reply = 17;        // the master's answer to it
inline constexpr Tag job_end_event = 18;      // a relayed spawn's job ended: tell its originator
inline constexpr Tag iof_ack = 19;            // the master took a daemon's output (flow control)
inline constexpr Tag alloc_request = 20;      // a process's PMIx_Allocation_request, relayed to the master
inline constexpr Tag alloc_reply = 21;        // the master's phase-one answer to it
inline constexpr Tag alloc_event = 22;        // its completion event, for the requester's own daemon
inline constexpr Tag alloc_query = 23;        // PMIX_QUERY_ALLOC_STATUS from a daemon's process, to the master
inline constexpr Tag alloc_query_reply = 24;  // the master's answer
inline constexpr Tag event_relay = 25;        // a process's PMIx event, from its daemon to the master
inline constexpr Tag event_broadcast = 26;    // that event, broadcast to every daemon's PMIx server
inline constexpr Tag publish_request = 27;    // PMIx_Publish/Lookup/Unpublish, to the master's store
inline constexpr Tag publish_reply = 28;      // the master's answer
inline constexpr Tag allgather_abort = 29;    // a participant's time limit passed: to the master
inline constexpr Tag allgather_failed = 30;   // the master's word that an allgather failed, broadcast
inline constexpr Tag participant_ended = 31;  // a process ended before taking part: to the master
inline constexpr Tag participant_ended_all = 32;  // ... broadcast to every daemon
inline constexpr Tag group_leader = 33;       // a construct's PMIX_GROUP_LEADER, from its daemon to the master
inline constexpr Tag group_leader_all = 34;   // ... broadcast to every daemon
inline constexpr Tag allgather_watch_request = 35;  // a collective to watch normal ends for: to the master
inline constexpr Tag allgather_watch = 36;    // ... to the daemons hosting its processes
inline constexpr Tag heartbeat = 37;          // a daemon to its parent in the tree: still running (empty)
inline constexpr Tag daemon_silent = 38;      // a parent to the master: a child of it fell silent
inline constexpr Tag declared_lost = 39;      // the master to a daemon it declared lost, directly: end
inline constexpr Tag stack_traces = 40;       // a daemon's stacks of a timed-out job's processes, to the master
inline constexpr Tag first_dynamic = 100;  // tags above this are assigned at run time
}  // namespace tag

// The most daemons a DVM may have (ranks 0 .. kMaxDaemons-1). Every daemon sizes its routing tree
// by the rank span a wireup announces, so a span beyond this is refused as corrupt rather than
// allocated for.
inline constexpr uint32_t kMaxDaemons = 1u << 20;

// An opaque, already-packed message body (packed with the PMIx data buffer API by the sender).
using Payload = std::vector<uint8_t>;

}  // namespace prte::rml
