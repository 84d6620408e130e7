// The messages the master and its daemons exchange about daemons and jobs, and their wire form
// (rml/buffer.h). Each decode checks every field and returns an error naming the message and the
// field instead of a half-filled value.
#pragma once

#include <pmix_common.h>

#include <string>
#include <vector>

#include "rml/types.h"
#include "runtime/job_table.h"
#include "runtime/node.h"
#include "runtime/stack_tracer.h"
#include "util/status.h"

namespace prte::plm::msg {

// A new daemon calls home (tag daemon_report) with its node's hardware: the counts, and the whole
// hwloc topology as XML (HwTopology::xml) on which the master places processes; the XML is empty
// when hwloc could not read the node. The decoder takes the XML as text: the master parses it
// (plm_daemons.h, record_topology), where it can name the daemon and node it came from. `machine`
// names the machine the daemon runs on (runtime::local_machine: host name and boot id, empty when
// unknown), so that the master knows which nodes share one machine's CPUs (wire protocol 9).
struct DaemonReport {
    runtime::Rank rank = runtime::kInvalidRank;
    std::string node_name;
    std::string uri;
    runtime::NodeTopology topology;
    std::string topology_xml;
    std::string machine;
};
rml::Payload encode(const DaemonReport& r);
Status decode(const rml::Payload& in, DaemonReport& out);
// The XML a daemon sends for its topology: hwloc's export without the root's HostName, which is
// all that tells apart the topologies of otherwise identical nodes, so that the master, which keeps
// one topology per distinct text, keeps one for a thousand such nodes rather than a thousand.
std::string topology_xml_to_send(std::string xml);

// Every daemon's contact and node, broadcast once all have called home (tag wireup).
struct WireupEntry {
    runtime::Rank rank = runtime::kInvalidRank;
    std::string node_name;
    std::string uri;
    int32_t slots = 0;
    bool allocated = true;  // false: the node hosts a daemon but no application process
};
// The rank span and who is in it (spec: collective-shrink-completion.txt, "the nidmap carries the
// rank span"): every rank below `size` is a listed daemon, a departed one (never to come back,
// routed around for ever), or else one a grow is still starting (routed around until wired).
struct Wireup {
    uint32_t size = 0;
    std::vector<WireupEntry> daemons;
    std::vector<runtime::Rank> departed;
};
rml::Payload encode(const Wireup& w);
Status decode(const rml::Payload& in, Wireup& out);

// Commands to daemons (tag daemon). shrink carries the campaign's targets: every daemon repairs
// its tree from them, and a target enters leaving mode (spec: collective-shrink-completion.txt).
// stack_traces (sent to each daemon with live processes of a job that timed out, prun
// --get-stack-traces) is answered with StackTraces. restart_procs (wire protocol 9) starts the
// job's processes `targets` (ranks of the job) again on the daemon that ran them (prun
// --max-restarts, --continuous): each has ended, and the master counts its new life.
enum class Command : uint8_t {
    exit = 1,
    kill_job = 2,
    cleanup_job = 3,
    signal_job = 4,
    shrink = 5,
    stack_traces = 6,
    restart_procs = 7
};
struct DaemonCommand {
    Command command = Command::exit;
    std::string nspace;
    int32_t signal = 0;
    std::vector<runtime::Rank> targets;  // shrink: daemons; restart_procs: the job's ranks
};
rml::Payload encode(const DaemonCommand& c);
Status decode(const rml::Payload& in, DaemonCommand& out);

// A job as the daemons need it to launch their share (tag launch_apps): apps, the map, stdin.
// `with_preload`: each app's preloaded files too (runtime/preload.h; wire protocol 10), for a
// daemon that hosts processes of the job; others get each app's list empty.
rml::Payload encode_job(const runtime::Job& job, bool with_preload = false);
// Builds the job; its processes point at nodes of `pool` by name (each must exist).
Status decode_job(const rml::Payload& in, runtime::NodePool& pool, runtime::JobPtr& out);

// A daemon tells the master what one of its processes reached (tag plm).
struct ProcUpdate {
    std::string nspace;
    runtime::Rank rank = runtime::kInvalidRank;
    runtime::ProcState state = runtime::ProcState::undef;
    int32_t pid = 0;
    int32_t exit_code = 0;
    int32_t term_signal = 0;
    std::string message;  // why it failed, when the daemon knows better than "failed"
};
rml::Payload encode(const ProcUpdate& u);
Status decode(const rml::Payload& in, ProcUpdate& out);

// A chunk of a process's output on its way to the master (tag iof); empty data ends the stream.
struct Output {
    std::string nspace;
    runtime::Rank rank = runtime::kInvalidRank;
    pmix_iof_channel_t channel = PMIX_FWD_STDOUT_CHANNEL;
    rml::Payload data;
};
rml::Payload encode(const Output& o);
Status decode(const rml::Payload& in, Output& out);

// A daemon's stacks of the job's live processes on its node, taken for Command::stack_traces (tag
// stack_traces): a trace per process, or the node's note saying why there is none.
struct StackTraces {
    std::string nspace;
    runtime::Rank daemon = runtime::kInvalidRank;
    runtime::NodeStackTraces node;
};
rml::Payload encode(const StackTraces& t);
Status decode(const rml::Payload& in, StackTraces& out);

// Ranks that left the DVM (tag daemon_died).
rml::Payload encode_ranks(const std::vector<runtime::Rank>& ranks);
Status decode_ranks(const rml::Payload& in, std::vector<runtime::Rank>& out);

// A daemon that fell silent (tag daemon_silent, its parent's report to the master; tag
// declared_lost, the master's word to the daemon itself): which, and for how long.
struct Silence {
    runtime::Rank rank = runtime::kInvalidRank;
    uint64_t silent_ms = 0;
};
rml::Payload encode(const Silence& s);
Status decode(const rml::Payload& in, Silence& out);

}  // namespace prte::plm::msg
