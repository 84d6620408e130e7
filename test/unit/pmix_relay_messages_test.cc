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
    return wire_golden::golden(
        std::string("pmix: ") + name, example, [](const Message& m) { return wire::encode(m); },
        [](const Payload& in, Message& m) {
            Status st = wire::decode(in, m);
            return st ? std::string() : st.message();
        },
        compare);
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
