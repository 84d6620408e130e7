// The messages the PMIx server host sends between daemons and the master, each with its encoder
// and decoder (a decoder fails naming the message and the field, and leaves the message
// unspecified), defined in the file that sends it. Their bytes are part of the wire protocol:
// test/unit/pmix_relay_messages_test.cc holds them to the golden encodings recorded for
// rml::kProtocolVersion (test/unit/wire_golden.h).
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <string>

#include "rml/types.h"
#include "runtime/process_name.h"
#include "util/status.h"

namespace prte::pmix::wire {

// rml::tag::direct_modex: a daemon asks another for one of its processes' data
// (remote_services.cc).
struct ModexRequest {
    uint64_t id = 0;
    std::string nspace;
    uint32_t rank = 0;
};
rml::Payload encode(const ModexRequest& m);
Status decode(const rml::Payload& in, ModexRequest& m);
// rml::tag::direct_modex_reply: the data, or PMIx's status.
struct ModexReply {
    uint64_t id = 0;
    int32_t status = 0;
    rml::Payload data;
};
rml::Payload encode(const ModexReply& m);
Status decode(const rml::Payload& in, ModexReply& m);
// rml::tag::stdin_data: a tool's stdin for a process on another node.
struct StdinData {
    uint64_t id = 0;
    std::string nspace;
    uint32_t rank = 0;
    rml::Payload data;
    bool eof = false;
};
rml::Payload encode(const StdinData& s);
Status decode(const rml::Payload& in, StdinData& s);
// rml::tag::stdin_ack: that daemon accepted it (flow control).
struct StdinAck {
    uint64_t id = 0;
    int32_t status = 0;
};
rml::Payload encode(const StdinAck& a);
Status decode(const rml::Payload& in, StdinAck& a);

// rml::tag::spawn_request: a process's PMIx_Spawn, relayed to the master, its request packed by
// PMIx (spawn_relay.cc).
struct SpawnRequest {
    uint64_t id = 0;
    std::string nspace;
    uint32_t rank = 0;
    rml::Payload packed;
};
rml::Payload encode(const SpawnRequest& s);
Status decode(const rml::Payload& in, SpawnRequest& s);
// rml::tag::spawn_reply: the master's answer.
struct SpawnReply {
    uint64_t id = 0;
    int32_t status = 0;
    std::string nspace;
};
rml::Payload encode(const SpawnReply& s);
Status decode(const rml::Payload& in, SpawnReply& s);
// rml::tag::job_end_event: a relayed spawn's job ended: tell its originator's daemon.
struct JobEnd {
    std::string nspace;
    int32_t exit_code = 0;
    std::string message;
    std::string originator_nspace;
    uint32_t originator_rank = 0;
};
rml::Payload encode(const JobEnd& j);
Status decode(const rml::Payload& in, JobEnd& j);

// rml::tag::iof_ack: the master took this many bytes of a job's output from a daemon
// (output_relay.cc).
struct OutputAck {
    std::string nspace;
    uint64_t total = 0;
};
rml::Payload encode(const OutputAck& a);
Status decode(const rml::Payload& in, OutputAck& a);

// rml::tag::event_relay and event_broadcast: a process's PMIx event (event_relay.cc).
struct Event {
    pmix_status_t code = PMIX_SUCCESS;
    pmix_proc_t source{};
    pmix_data_range_t range = PMIX_RANGE_UNDEF;
    runtime::Rank origin = runtime::kInvalidRank;  // the daemon whose server delivered it first
    rml::Payload info;                             // the info array, packed by PMIx
};
rml::Payload encode(const Event& e);
Status decode(const rml::Payload& in, Event& e);

// rml::tag::group_leader and group_leader_all: a construct's PMIX_GROUP_LEADER
// (groups/leaders.cc).
struct GroupLeader {
    std::string id;
    pmix_proc_t leader{};
};
rml::Payload encode(const GroupLeader& g);
Status decode(const rml::Payload& in, GroupLeader& g);

}  // namespace prte::pmix::wire
