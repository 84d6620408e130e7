// The messages the PMIx server host sends between daemons and the master, each with its encoder
// and decoder (a decoder fails naming the message and the field, and leaves the message
// unspecified), defined in the file that sends it. Their bytes are part of the wire protocol:
// test/unit/pmix_relay_messages_test.cc holds them to the golden encodings recorded for
// rml::kProtocolVersion (test/unit/wire_golden.h).
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// rml::tag::alloc_request: a process's PMIx_Allocation_request, relayed to the master
// (allocation.cc).
struct AllocationRequest {
    uint64_t id = 0;
    std::string nspace;
    uint32_t rank = 0;
    uint8_t directive = 0;  // a runtime::AllocDirective; the receiver checks its range
    std::vector<std::string> node_list;
    uint64_t num_nodes = 0;
    std::string alloc_id;
    std::string req_id;
};
rml::Payload encode(const AllocationRequest& a);
Status decode(const rml::Payload& in, AllocationRequest& a);
// rml::tag::alloc_reply: the master's phase-one answer.
struct AllocationReply {
    uint64_t id = 0;
    int32_t status = 0;
    std::string alloc_id;  // the allocation granted
    std::string message;   // why not, when it was refused
};
rml::Payload encode(const AllocationReply& a);
Status decode(const rml::Payload& in, AllocationReply& a);
// rml::tag::alloc_event: phase two, how the allocation ended, for the requester's daemon to raise.
struct AllocationEvent {
    std::string nspace;  // the requester
    uint32_t rank = 0;
    std::string alloc_id;
    std::string req_id;
    bool success = false;
    int32_t cause = 0;
    std::string message;
};
rml::Payload encode(const AllocationEvent& a);
Status decode(const rml::Payload& in, AllocationEvent& a);

// rml::tag::alloc_query: a process's PMIX_QUERY_ALLOC_STATUS, relayed to the master (query.cc).
struct AllocationStatusQuery {
    uint64_t id = 0;
    std::optional<std::string> alloc_id;  // the PMIX_ALLOC_ID qualifier, if any
};
rml::Payload encode(const AllocationStatusQuery& q);
Status decode(const rml::Payload& in, AllocationStatusQuery& q);
// rml::tag::alloc_query_reply: the master's answer; no status when the allocation is unknown.
struct AllocationStatusAnswer {
    uint64_t id = 0;
    std::optional<std::string> status;
};
rml::Payload encode(const AllocationStatusAnswer& a);
Status decode(const rml::Payload& in, AllocationStatusAnswer& a);

// rml::tag::publish_request: a process's PMIx_Publish, PMIx_Lookup or PMIx_Unpublish, relayed to
// the master (publish.cc).
struct PublishRequest {
    uint64_t id = 0;
    uint8_t op = 0;  // HostState::Published::Op: 1 publish, 2 lookup, 3 unpublish
    pmix_proc_t requester{};
    rml::Payload info;              // publish: the data; lookup/unpublish: directives (packed by PMIx)
    std::vector<std::string> keys;  // lookup/unpublish
};
rml::Payload encode(const PublishRequest& p);
Status decode(const rml::Payload& in, PublishRequest& p);
// A lookup's entries, one field of its reply: per key found, the publisher and the entry (one
// pmix_info_t, packed by PMIx). A decoder keeps at most the first 4096.
struct LookupEntry {
    pmix_proc_t publisher{};
    rml::Payload entry;
};
struct LookupEntries {
    std::vector<LookupEntry> found;
};
rml::Payload encode(const LookupEntries& e);
Status decode(const rml::Payload& in, LookupEntries& e);
// rml::tag::publish_reply: the master's answer, its entries encoded as LookupEntries (the daemon
// decodes them when it answers PMIx).
struct PublishReply {
    uint64_t id = 0;
    int32_t status = 0;
    rml::Payload entries;
};
rml::Payload encode(const PublishReply& p);
Status decode(const rml::Payload& in, PublishReply& p);

}  // namespace prte::pmix::wire
