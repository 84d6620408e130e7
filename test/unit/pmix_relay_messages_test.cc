// The PMIx server host's messages between daemons and the master (src/pmix/wire_messages.h): each
// one's encoding of a fixed, fully populated example is the one recorded for this wire protocol
// version (wire_golden.h), and the recorded bytes decode to the example, field by field.
#include "pmix/wire_messages.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmix_server_env.h"
#include "rml/types.h"
#include "wire_golden.h"

namespace {

namespace wire = prte::pmix::wire;
using prte::Status;
using prte::rml::Payload;
using wire_golden::differ;
using wire_golden::first_of;
using wire_golden::GoldenMessage;

Payload bytes(const std::string& text) { return Payload(text.begin(), text.end()); }

pmix_proc_t proc(const char* nspace, pmix_rank_t rank)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    return p;
}

std::string proc_differs(const char* field, const pmix_proc_t& got, const pmix_proc_t& want)
{
    return first_of({differ(field, std::string(got.nspace), std::string(want.nspace)), differ(field, got.rank, want.rank)});
}

template <typename Message, typename Compare>
GoldenMessage golden(const char* name, const Message& example, Compare compare)
{
    return wire_golden::golden_by_lookup(std::string("pmix: ") + name, example, compare);
}

std::vector<GoldenMessage> golden_messages()
{
    std::vector<GoldenMessage> out;
    out.push_back(golden("direct modex request", wire::ModexRequest{51, "prte-job-4", 6},
                         [](const wire::ModexRequest& g, const wire::ModexRequest& w) {
                             return first_of({differ("id", g.id, w.id), differ("nspace", g.nspace, w.nspace),
                                              differ("rank", g.rank, w.rank)});
                         }));
    out.push_back(golden("direct modex reply", wire::ModexReply{52, PMIX_ERR_NOT_FOUND, bytes("modex")},
                         [](const wire::ModexReply& g, const wire::ModexReply& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status),
                                              differ("data", g.data, w.data)});
                         }));
    out.push_back(golden("stdin", wire::StdinData{53, "prte-job-5", 2, bytes("input\n"), true},
                         [](const wire::StdinData& g, const wire::StdinData& w) {
                             return first_of({differ("id", g.id, w.id), differ("nspace", g.nspace, w.nspace),
                                              differ("rank", g.rank, w.rank), differ("data", g.data, w.data),
                                              differ("eof", g.eof, w.eof)});
                         }));
    out.push_back(golden("stdin acknowledgement", wire::StdinAck{54, PMIX_ERR_UNREACH},
                         [](const wire::StdinAck& g, const wire::StdinAck& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status)});
                         }));
    out.push_back(golden("spawn request", wire::SpawnRequest{55, "prte-job-6", 3, bytes("packed request")},
                         [](const wire::SpawnRequest& g, const wire::SpawnRequest& w) {
                             return first_of({differ("id", g.id, w.id), differ("nspace", g.nspace, w.nspace),
                                              differ("rank", g.rank, w.rank), differ("packed", g.packed, w.packed)});
                         }));
    out.push_back(golden("spawn reply", wire::SpawnReply{56, PMIX_ERR_OUT_OF_RESOURCE, "prte-job-7"},
                         [](const wire::SpawnReply& g, const wire::SpawnReply& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status),
                                              differ("nspace", g.nspace, w.nspace)});
                         }));
    out.push_back(golden("job end", wire::JobEnd{"prte-job-7", 3, "exited with status 3", "prte-job-6", 4},
                         [](const wire::JobEnd& g, const wire::JobEnd& w) {
                             return first_of({differ("nspace", g.nspace, w.nspace), differ("exit_code", g.exit_code, w.exit_code),
                                              differ("message", g.message, w.message),
                                              differ("originator_nspace", g.originator_nspace, w.originator_nspace),
                                              differ("originator_rank", g.originator_rank, w.originator_rank)});
                         }));
    out.push_back(golden("output acknowledgement", wire::OutputAck{"prte-job-8", 70000},
                         [](const wire::OutputAck& g, const wire::OutputAck& w) {
                             return first_of({differ("nspace", g.nspace, w.nspace), differ("total", g.total, w.total)});
                         }));
    out.push_back(golden("relayed event",
                         wire::Event{PMIX_ERR_PROC_ABORTED, proc("prte-job-9", 5), PMIX_RANGE_SESSION, 3, bytes("info")},
                         [](const wire::Event& g, const wire::Event& w) {
                             return first_of({differ("code", g.code, w.code), proc_differs("source", g.source, w.source),
                                              differ("range", static_cast<int>(g.range), static_cast<int>(w.range)),
                                              differ("origin", g.origin, w.origin), differ("info", g.info, w.info)});
                         }));
    out.push_back(golden("group leader", wire::GroupLeader{"group-a", proc("prte-job-10", 1)},
                         [](const wire::GroupLeader& g, const wire::GroupLeader& w) {
                             return first_of({differ("id", g.id, w.id), proc_differs("leader", g.leader, w.leader)});
                         }));
    out.push_back(golden("allocation request",
                         wire::AllocationRequest{57, "prte-job-11", 7, 2, {"node03", "node04"}, 3, "alloc-3", "req-4"},
                         [](const wire::AllocationRequest& g, const wire::AllocationRequest& w) {
                             return first_of({differ("id", g.id, w.id), differ("nspace", g.nspace, w.nspace),
                                              differ("rank", g.rank, w.rank),
                                              differ("directive", int(g.directive), int(w.directive)),
                                              differ("node_list", g.node_list, w.node_list),
                                              differ("num_nodes", g.num_nodes, w.num_nodes),
                                              differ("alloc_id", g.alloc_id, w.alloc_id), differ("req_id", g.req_id, w.req_id)});
                         }));
    out.push_back(golden("allocation reply", wire::AllocationReply{58, PMIX_ERR_OUT_OF_RESOURCE, "alloc-3", "no node is free"},
                         [](const wire::AllocationReply& g, const wire::AllocationReply& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status),
                                              differ("alloc_id", g.alloc_id, w.alloc_id), differ("message", g.message, w.message)});
                         }));
    out.push_back(golden("allocation event",
                         wire::AllocationEvent{"prte-job-11", 7, "alloc-3", "req-4", true, PMIX_ERR_UNREACH, "node04 was slow"},
                         [](const wire::AllocationEvent& g, const wire::AllocationEvent& w) {
                             return first_of({differ("nspace", g.nspace, w.nspace), differ("rank", g.rank, w.rank),
                                              differ("alloc_id", g.alloc_id, w.alloc_id), differ("req_id", g.req_id, w.req_id),
                                              differ("success", g.success, w.success), differ("cause", g.cause, w.cause),
                                              differ("message", g.message, w.message)});
                         }));
    out.push_back(golden("allocation status query", wire::AllocationStatusQuery{59, "alloc-3"},
                         [](const wire::AllocationStatusQuery& g, const wire::AllocationStatusQuery& w) {
                             return first_of({differ("id", g.id, w.id), differ("alloc_id", g.alloc_id, w.alloc_id)});
                         }));
    out.push_back(golden("allocation status answer",
                         wire::AllocationStatusAnswer{60, "alloc-3: ready; ras hosts; 2 node(s) up: node03, node04"},
                         [](const wire::AllocationStatusAnswer& g, const wire::AllocationStatusAnswer& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status)});
                         }));
    out.push_back(golden("publish/lookup request",
                         wire::PublishRequest{61, 2, proc("prte-job-12", 3), bytes("directives"), {"port-a", "port-b"}},
                         [](const wire::PublishRequest& g, const wire::PublishRequest& w) {
                             return first_of({differ("id", g.id, w.id), differ("op", int(g.op), int(w.op)),
                                              proc_differs("requester", g.requester, w.requester),
                                              differ("info", g.info, w.info), differ("keys", g.keys, w.keys)});
                         }));
    out.push_back(golden("publish/lookup reply entries",
                         wire::LookupEntries{{{proc("prte-job-12", 1), bytes("entry a")}, {proc("prte-job-13", 4), bytes("entry b")}}},
                         [](const wire::LookupEntries& g, const wire::LookupEntries& w) {
                             std::string d = differ("count", g.found.size(), w.found.size());
                             for (size_t i = 0; d.empty() && i < w.found.size(); ++i) {
                                 d = first_of({proc_differs("publisher", g.found[i].publisher, w.found[i].publisher),
                                               differ("entry", g.found[i].entry, w.found[i].entry)});
                             }
                             return d;
                         }));
    out.push_back(golden("publish/lookup reply", wire::PublishReply{62, PMIX_ERR_DUPLICATE_KEY, bytes("entries")},
                         [](const wire::PublishReply& g, const wire::PublishReply& w) {
                             return first_of({differ("id", g.id, w.id), differ("status", g.status, w.status),
                                              differ("entries", g.entries, w.entries)});
                         }));
    return out;
}

TEST(PmixRelayMessagesGolden, EveryMessageEncodesAsRecordedForThisProtocolVersion)
{
    wire_golden::expect_encodings_recorded("pmix", golden_messages());
}

TEST(PmixRelayMessagesGolden, TheRecordedBytesDecodeToTheExample)
{
    wire_golden::expect_recorded_bytes_decode(golden_messages());
}

}  // namespace
