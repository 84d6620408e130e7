// grpcomm/direct's collectives, run as several daemons in one process over a fake network
// (issue 30, item 4): the broadcast with its acknowledgements, the allgather up the tree, context
// ids, a collective's time limit, a participant that ended or left, and the tree's repair when a
// daemon leaves; and each of the module's messages encodes as recorded for this wire protocol
// version (wire_golden.h). Every daemon has its own DirectModule and routing tree; messages wait in one queue
// until the test delivers them, so a test can act between a send and its delivery (a daemon that
// leaves with a share in flight to it).
#include <event2/event.h>
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "pmix_server_env.h"
#include "runtime/runtime.h"
#include "wire_golden.h"

namespace {

using prte::Errc;
using prte::Status;
using prte::grpcomm::Signature;
using prte::grpcomm::direct::DirectModule;
using prte::grpcomm::direct::Transport;
using prte::rml::Payload;
using prte::runtime::ProcessName;
using prte::runtime::Rank;

constexpr uint32_t kRadix = 2;  // 0 -> 1, 2; 1 -> 3 (4 daemons): daemon 3's shares go through daemon 1

Payload bytes(const std::string& text) { return Payload(text.begin(), text.end()); }
std::string text(const Payload& payload) { return std::string(payload.begin(), payload.end()); }

class FakeNetwork;

// One daemon's side of the fake network.
class FakeTransport final : public Transport {
  public:
    FakeTransport(FakeNetwork& net, Rank self, uint32_t size) : net_(net), tree_(self, size, kRadix) {}

    Rank self() const override { return tree_.self(); }
    const prte::rml::RadixTree& tree() const override { return tree_; }
    Status send(Rank dest, prte::rml::Tag tag, Payload payload) override;
    Status send_direct(Rank dest, prte::rml::Tag tag, Payload payload) override;
    void register_handler(prte::rml::Tag tag, prte::rml::Handler handler) override { handlers_[tag] = std::move(handler); }
    void add_tree_listener(std::function<void()> listener) override { listeners_.push_back(std::move(listener)); }
    void dispatch(Rank origin, prte::rml::Tag tag, Payload&& payload) override { receive(origin, tag, std::move(payload)); }
    event_base* timer_base() override;

    void receive(Rank origin, prte::rml::Tag tag, Payload&& payload)
    {
        auto it = handlers_.find(tag);
        if (it != handlers_.end()) it->second(origin, std::move(payload));
    }
    // What the messenger does when daemons leave: repair the tree, then tell the listeners.
    void departed(const std::vector<Rank>& ranks)
    {
        tree_.mark_departed(ranks);
        for (auto& listener : listeners_) listener();
    }

  private:
    FakeNetwork& net_;
    prte::rml::RadixTree tree_;
    std::map<prte::rml::Tag, prte::rml::Handler> handlers_;
    std::vector<std::function<void()>> listeners_;
};

class FakeNetwork {
  public:
    explicit FakeNetwork(uint32_t size) : base_(event_base_new())
    {
        for (Rank r = 0; r < size; ++r) {
            auto transport = std::make_unique<FakeTransport>(*this, r, size);
            transports_.push_back(transport.get());
            modules_.push_back(std::make_unique<DirectModule>(std::move(transport)));
            EXPECT_TRUE(modules_.back()->init().ok());
        }
    }
    ~FakeNetwork()
    {
        modules_.clear();  // their timers first
        event_base_free(base_);
    }

    DirectModule& daemon(Rank r) { return *modules_.at(r); }
    FakeTransport& transport(Rank r) { return *transports_.at(r); }
    event_base* base() { return base_; }

    void post(Rank from, Rank to, prte::rml::Tag tag, Payload payload)
    {
        queue_.push_back({from, to, tag, std::move(payload)});
    }
    bool gone(Rank r) const { return gone_.count(r) != 0; }

    // Delivers every message, and those they cause, in order. Returns how many.
    size_t deliver_all()
    {
        size_t n = 0;
        while (!queue_.empty()) {
            Message m = std::move(queue_.front());
            queue_.pop_front();
            if (gone(m.to)) continue;  // its connections are closed: what was in flight is lost
            transports_.at(m.to)->receive(m.from, m.tag, std::move(m.payload));
            ++n;
        }
        return n;
    }

    // Daemon `r` leaves: what was queued for it is lost, and every other daemon repairs its tree
    // - but those in `later`, which hear of it only when told (hear_of_leave).
    void leave(Rank r, const std::set<Rank>& later = {})
    {
        gone_.insert(r);
        for (Rank d = 0; d < transports_.size(); ++d) {
            if (!gone(d) && !later.count(d)) transports_[d]->departed({r});
        }
    }
    void hear_of_leave(Rank d, Rank r) { transports_.at(d)->departed({r}); }

    // Runs the timers (a collective's time limit) until `done` or `limit` rounds.
    template <typename Pred>
    void run_timers_until(Pred done, int limit = 200)
    {
        for (int i = 0; i < limit && !done(); ++i) {
            event_base_loop(base_, EVLOOP_ONCE);
            deliver_all();
        }
    }

  private:
    struct Message {
        Rank from;
        Rank to;
        prte::rml::Tag tag;
        Payload payload;
    };
    event_base* base_;
    std::vector<FakeTransport*> transports_;
    std::vector<std::unique_ptr<DirectModule>> modules_;
    std::deque<Message> queue_;
    std::set<Rank> gone_;
};

Status FakeTransport::send(Rank dest, prte::rml::Tag tag, Payload payload)
{
    if (net_.gone(dest) || dest >= tree_.size()) return {Errc::unreachable, "daemon gone"};
    // Routed as the messenger routes: through a next hop that is gone but not yet known to be
    // (stopped, cut off), the message is lost.
    Rank hop = tree_.next_hop(dest);
    if (hop != prte::runtime::kInvalidRank && net_.gone(hop)) return {};
    net_.post(self(), dest, tag, std::move(payload));
    return {};
}

Status FakeTransport::send_direct(Rank dest, prte::rml::Tag tag, Payload payload)
{
    if (net_.gone(dest) || dest >= tree_.size()) return {Errc::unreachable, "daemon gone"};
    net_.post(self(), dest, tag, std::move(payload));
    return {};
}

event_base* FakeTransport::timer_base() { return net_.base(); }

// What one daemon's allgather callback saw.
struct Outcome {
    bool called = false;
    Status status;
    std::string combined;
    uint64_t context_id = 0;
    std::string ended;
    std::vector<std::string> left_out;
};

std::string name(const ProcessName& p) { return p.nspace + ":" + std::to_string(p.rank); }

prte::grpcomm::AllgatherCallback record(Outcome& out)
{
    return [&out](const Status& st, const Payload& combined, uint64_t context_id, const ProcessName* ended,
                  const std::vector<ProcessName>& left_out) {
        out.called = true;
        out.status = st;
        out.combined = text(combined);
        out.context_id = context_id;
        out.ended = ended ? name(*ended) : "";
        for (const auto& p : left_out) out.left_out.push_back(name(p));
    };
}

// A job of `procs` processes, process i on the node of daemon placement[i], in the job table every
// daemon reads (one table: these daemons share a process, as real ones share the job maps).
class GrpcommDirect : public ::testing::Test {
  protected:
    void place(const std::string& nspace, const std::vector<Rank>& placement)
    {
        auto job = std::make_shared<prte::runtime::Job>();
        job->nspace = nspace;
        for (size_t i = 0; i < placement.size(); ++i) {
            auto node = std::make_unique<prte::runtime::Node>();
            node->name = "node" + std::to_string(placement[i]);
            node->daemon = placement[i];
            auto proc = std::make_unique<prte::runtime::Proc>();
            proc->rank = static_cast<Rank>(i);
            proc->node = node.get();
            job->procs.push_back(std::move(proc));
            nodes_.push_back(std::move(node));
        }
        prte::runtime::Runtime::instance().jobs().insert(job);
        nspaces_.push_back(nspace);
    }
    void TearDown() override
    {
        for (const auto& ns : nspaces_) prte::runtime::Runtime::instance().jobs().remove(ns);
    }

    static Signature whole_job(const std::string& nspace)
    {
        Signature s;
        s.procs.push_back({nspace, prte::runtime::kWildcardRank});
        return s;
    }
    static ProcessName proc(const std::string& nspace, Rank rank) { return {nspace, rank}; }

    std::vector<std::unique_ptr<prte::runtime::Node>> nodes_;
    std::vector<std::string> nspaces_;
};

TEST_F(GrpcommDirect, BroadcastReachesEveryDaemonOnceAndCompletesOnTheMaster)
{
    FakeNetwork net(4);
    constexpr prte::rml::Tag kTag = 200;
    std::vector<std::string> received(4);
    for (Rank r = 0; r < 4; ++r) {
        net.transport(r).register_handler(kTag, [&received, r](Rank, Payload&& p) { received[r] += text(p); });
    }
    int completions = 0;
    Status completed;
    ASSERT_TRUE(net.daemon(0).xcast(kTag, bytes("go"), [&](const Status& st) {
        ++completions;
        completed = st;
    }).ok());
    EXPECT_EQ(received[0], "go");  // the master's own copy is processed at once
    EXPECT_EQ(completions, 0) << "complete before any daemon acknowledged";
    net.deliver_all();
    EXPECT_EQ(received, (std::vector<std::string>{"go", "go", "go", "go"}));
    EXPECT_EQ(completions, 1);
    EXPECT_TRUE(completed.ok());
    EXPECT_FALSE(net.daemon(1).xcast(kTag, bytes("x"), {}).ok()) << "only the master broadcasts";
}

TEST_F(GrpcommDirect, BroadcastCompletesWithoutADaemonThatLeftAndReachesItsAdoptedChild)
{
    FakeNetwork net(4);
    constexpr prte::rml::Tag kTag = 201;
    std::vector<int> received(4, 0);
    for (Rank r = 0; r < 4; ++r) net.transport(r).register_handler(kTag, [&received, r](Rank, Payload&&) { ++received[r]; });
    int completions = 0;
    ASSERT_TRUE(net.daemon(0).xcast(kTag, bytes("go"), [&](const Status&) { ++completions; }).ok());
    net.leave(1);  // with the broadcast in flight to it; daemon 3, its child, is adopted by the master
    net.deliver_all();
    EXPECT_EQ(received, (std::vector<int>{1, 0, 1, 1}));
    EXPECT_EQ(completions, 1);
}

// The master declares daemon 1 lost (stopped, cut off) with a broadcast in flight and sends it on
// to daemon 3, which it adopts; daemon 3 hears of the loss only later (the loss's own broadcast),
// so its tree still names daemon 1 as its parent when it acknowledges. The acknowledgement must
// reach the master all the same (bench/chaos: a shrink order never completed this way).
TEST_F(GrpcommDirect, AnAdoptedChildThatHasNotHeardOfTheLossStillAcknowledgesToTheMaster)
{
    FakeNetwork net(4);
    constexpr prte::rml::Tag kTag = 202;
    std::vector<int> received(4, 0);
    for (Rank r = 0; r < 4; ++r) net.transport(r).register_handler(kTag, [&received, r](Rank, Payload&&) { ++received[r]; });
    int completions = 0;
    ASSERT_TRUE(net.daemon(0).xcast(kTag, bytes("go"), [&](const Status&) { ++completions; }).ok());
    net.leave(1, {3});
    net.deliver_all();
    EXPECT_EQ(received, (std::vector<int>{1, 0, 1, 1}));
    EXPECT_EQ(completions, 1) << "daemon 3 acknowledged along its stale tree, to the lost daemon 1";
    net.hear_of_leave(3, 1);
    net.deliver_all();
    EXPECT_EQ(completions, 1);
}

TEST_F(GrpcommDirect, AllgatherWaitsForEveryParticipantAndCombinesSharesInDaemonOrder)
{
    FakeNetwork net(4);
    place("job-a", {0, 1, 2, 3});
    std::vector<Outcome> out(4);
    for (Rank r : {3, 1, 2}) ASSERT_TRUE(net.daemon(r).allgather(whole_job("job-a"), bytes("d" + std::to_string(r)), record(out[r])).ok());
    net.deliver_all();
    for (const auto& o : out) EXPECT_FALSE(o.called) << "completed without daemon 0's share";
    ASSERT_TRUE(net.daemon(0).allgather(whole_job("job-a"), bytes("d0"), record(out[0])).ok());
    net.deliver_all();
    for (Rank r = 0; r < 4; ++r) {
        EXPECT_TRUE(out[r].called) << "daemon " << r;
        EXPECT_TRUE(out[r].status.ok()) << out[r].status.message();
        EXPECT_EQ(out[r].combined, "d0d1d2d3") << "daemon " << r;
        EXPECT_EQ(out[r].context_id, 0u);
    }
}

TEST_F(GrpcommDirect, OnlyTheDaemonsHostingParticipantsTakePart)
{
    FakeNetwork net(4);
    place("job-b", {1, 3, 3});
    Outcome on1, on3;
    EXPECT_FALSE(net.daemon(2).allgather(whole_job("job-b"), bytes("x"), record(on1)).ok())
        << "a daemon hosting none of the processes contributed";
    ASSERT_TRUE(net.daemon(3).allgather(whole_job("job-b"), bytes("c"), record(on3)).ok());
    ASSERT_TRUE(net.daemon(1).allgather(whole_job("job-b"), bytes("a"), record(on1)).ok());
    net.deliver_all();
    EXPECT_EQ(on1.combined, "ac");
    EXPECT_EQ(on3.combined, "ac");
}

TEST_F(GrpcommDirect, ContextIdsAreTheSameOnEveryDaemonAndNeverReused)
{
    FakeNetwork net(3);
    place("job-c", {0, 1, 2});
    std::vector<uint64_t> ids;
    for (int round = 0; round < 3; ++round) {
        std::vector<Outcome> out(3);
        Signature s = whole_job("job-c");
        for (Rank r = 0; r < 3; ++r) {
            s.assign_context_id = r == 2;  // any participant may ask
            ASSERT_TRUE(net.daemon(r).allgather(s, bytes("x"), record(out[r])).ok());
        }
        net.deliver_all();
        for (Rank r = 0; r < 3; ++r) {
            ASSERT_TRUE(out[r].called && out[r].status.ok()) << "round " << round << ", daemon " << r;
            EXPECT_EQ(out[r].context_id, out[0].context_id);
        }
        ids.push_back(out[0].context_id);
    }
    EXPECT_NE(ids[0], 0u);
    EXPECT_LT(ids[0], ids[1]);
    EXPECT_LT(ids[1], ids[2]);
}

TEST_F(GrpcommDirect, AShareInFlightToADaemonThatLeftIsSentAgainThroughTheRepairedTree)
{
    FakeNetwork net(4);
    place("job-d", {0, 2, 3});  // daemon 1, daemon 3's parent, hosts none of them
    std::vector<Outcome> out(4);
    for (Rank r : {0, 2, 3}) ASSERT_TRUE(net.daemon(r).allgather(whole_job("job-d"), bytes("d" + std::to_string(r)), record(out[r])).ok());
    net.leave(1);  // daemon 3's share was queued for it
    net.deliver_all();
    for (Rank r : {0, 2, 3}) {
        EXPECT_TRUE(out[r].called) << "daemon " << r << " still waits";
        EXPECT_TRUE(out[r].status.ok()) << out[r].status.message();
        EXPECT_EQ(out[r].combined, "d0d2d3");
    }
}

TEST_F(GrpcommDirect, ADaemonHostingParticipantsThatLeavesFailsTheCollectiveEverywhere)
{
    FakeNetwork net(4);
    place("job-e", {0, 1, 2, 3});
    std::vector<Outcome> out(4);
    for (Rank r : {0, 1, 2}) ASSERT_TRUE(net.daemon(r).allgather(whole_job("job-e"), bytes("x"), record(out[r])).ok());
    net.deliver_all();
    net.leave(3);
    net.deliver_all();
    for (Rank r : {0, 1, 2}) {
        EXPECT_TRUE(out[r].called) << "daemon " << r << " still waits for a daemon that left";
        EXPECT_FALSE(out[r].status.ok());
    }
}

TEST_F(GrpcommDirect, AParticipantThatEndedFailsTheCollectiveNamingItOrIsLeftOutWhenOptional)
{
    FakeNetwork net(3);
    place("job-f", {0, 1, 2});
    net.daemon(2).participant_ended(proc("job-f", 2));
    net.deliver_all();
    std::vector<Outcome> strict(3);
    for (Rank r : {0, 1}) ASSERT_TRUE(net.daemon(r).allgather(whole_job("job-f"), bytes("s"), record(strict[r])).ok());
    net.deliver_all();
    for (Rank r : {0, 1}) {
        ASSERT_TRUE(strict[r].called) << "daemon " << r << " waits for a process that ended";
        EXPECT_EQ(strict[r].status.code(), Errc::peer_ended);
        EXPECT_EQ(strict[r].ended, "job-f:2");
    }
    std::vector<Outcome> optional(3);
    Signature s = whole_job("job-f");
    s.optional = true;
    s.id = "optional";
    for (Rank r : {0, 1}) ASSERT_TRUE(net.daemon(r).allgather(s, bytes("o" + std::to_string(r)), record(optional[r])).ok());
    net.deliver_all();
    for (Rank r : {0, 1}) {
        ASSERT_TRUE(optional[r].called) << "daemon " << r;
        EXPECT_TRUE(optional[r].status.ok()) << optional[r].status.message();
        EXPECT_EQ(optional[r].combined, "o0o1");
        EXPECT_EQ(optional[r].left_out, (std::vector<std::string>{"job-f:2"}));
    }
}

TEST_F(GrpcommDirect, AWatchedCollectiveFailsWhenAMemberLeavesNormallyWithoutTakingPart)
{
    FakeNetwork net(3);
    place("job-g", {0, 1, 2});
    Signature s = whole_job("job-g");
    s.watch_normal_ends = true;
    std::vector<Outcome> out(3);
    for (Rank r : {0, 1}) ASSERT_TRUE(net.daemon(r).allgather(s, bytes("w"), record(out[r])).ok());
    net.deliver_all();
    ASSERT_TRUE(net.daemon(2).watches(proc("job-g", 2))) << "daemon 2 was not asked to watch its process";
    net.daemon(2).process_left(proc("job-g", 2));
    net.deliver_all();
    for (Rank r : {0, 1}) {
        ASSERT_TRUE(out[r].called) << "daemon " << r << " waits for a process that left";
        EXPECT_EQ(out[r].status.code(), Errc::peer_ended);
    }
}

TEST_F(GrpcommDirect, ATimeLimitFailsTheCollectiveOnEveryParticipatingDaemon)
{
    FakeNetwork net(3);
    place("job-h", {0, 1, 2});
    Signature limited = whole_job("job-h");
    limited.time_limit = std::chrono::milliseconds(20);
    std::vector<Outcome> out(3);
    ASSERT_TRUE(net.daemon(1).allgather(limited, bytes("t"), record(out[1])).ok());
    ASSERT_TRUE(net.daemon(0).allgather(whole_job("job-h"), bytes("t"), record(out[0])).ok());
    net.deliver_all();
    EXPECT_FALSE(out[0].called || out[1].called);
    net.run_timers_until([&] { return out[0].called && out[1].called; });
    for (Rank r : {0, 1}) {
        ASSERT_TRUE(out[r].called) << "daemon " << r << " waits past the time limit";
        EXPECT_EQ(out[r].status.code(), Errc::timed_out);
    }
    // Daemon 2, late, learns the collective failed instead of starting it again.
    ASSERT_TRUE(net.daemon(2).allgather(whole_job("job-h"), bytes("t"), record(out[2])).ok());
    net.deliver_all();
    EXPECT_TRUE(!out[2].called || !out[2].status.ok()) << "a late participant completed a failed collective";
}

// ---- Golden encodings of the module's messages (wire_golden.h), every field set.
namespace wire = prte::grpcomm::direct::wire;
using wire_golden::differ;
using wire_golden::first_of;
using wire_golden::GoldenMessage;

template <typename Message, typename Compare>
GoldenMessage golden(const char* name, const Message& example, Compare compare)
{
    return wire_golden::golden_by_lookup(std::string("grpcomm: ") + name, example, compare);
}

std::vector<GoldenMessage> golden_messages()
{
    std::vector<GoldenMessage> out;
    out.push_back(golden("broadcast", wire::Envelope{41, prte::rml::tag::launch_apps, bytes("inner")},
                         [](const wire::Envelope& g, const wire::Envelope& w) {
                             return first_of({differ("id", g.id, w.id), differ("tag", g.tag, w.tag),
                                              differ("message", text(g.message), text(w.message))});
                         }));
    out.push_back({"grpcomm: broadcast acknowledgement", wire::encode_ack(42), [](const Payload& in) {
                       uint64_t id = 0;
                       Status st = wire::decode_ack(in, id);
                       if (!st) return "does not decode: " + st.message();
                       return differ("id", id, uint64_t{42});
                   }});
    out.push_back(golden("allgather contribution",
                         wire::Contribution{"job-a:0,job-a:1|grp", 3, {"job-a:0", "job-a:1"}, true, true,
                                            {{1, bytes("one")}, {3, bytes("three")}}},
                         [](const wire::Contribution& g, const wire::Contribution& w) {
                             return first_of({differ("signature", g.signature, w.signature), differ("seq", g.seq, w.seq),
                                              differ("procs", g.procs, w.procs),
                                              differ("assign_context_id", g.assign_context_id, w.assign_context_id),
                                              differ("optional", g.optional, w.optional),
                                              differ("shares", g.shares, w.shares)});
                         }));
    out.push_back(golden("allgather result",
                         wire::Release{"job-a:*|", 4, 17, bytes("onethree"), {{"job-a", 2}, {"job-b", 5}}},
                         [](const wire::Release& g, const wire::Release& w) {
                             return first_of({differ("signature", g.signature, w.signature), differ("seq", g.seq, w.seq),
                                              differ("context_id", g.context_id, w.context_id),
                                              differ("data", text(g.data), text(w.data)),
                                              differ("left_out", g.left_out, w.left_out)});
                         }));
    out.push_back(golden("allgather abort",
                         wire::Abort{"job-a:*|", 5, {"job-a:*"}, Errc::timed_out, "not complete within 20 ms"},
                         [](const wire::Abort& g, const wire::Abort& w) {
                             return first_of({differ("signature", g.signature, w.signature), differ("seq", g.seq, w.seq),
                                              differ("procs", g.procs, w.procs),
                                              differ("code", static_cast<int>(g.code), static_cast<int>(w.code)),
                                              differ("message", g.message, w.message)});
                         }));
    out.push_back(golden("allgather failure", wire::Failure{"job-a:*|", 6, Errc::peer_ended, "job-a:1 ended"},
                         [](const wire::Failure& g, const wire::Failure& w) {
                             return first_of({differ("signature", g.signature, w.signature), differ("seq", g.seq, w.seq),
                                              differ("code", static_cast<int>(g.code), static_cast<int>(w.code)),
                                              differ("message", g.message, w.message)});
                         }));
    out.push_back(golden("ended participant", wire::EndedParticipant{{"job-c", 7}, {{"job-c:*|", 2}, {"job-c:7|x", 9}}},
                         [](const wire::EndedParticipant& g, const wire::EndedParticipant& w) {
                             return first_of({differ("proc nspace", g.proc.nspace, w.proc.nspace),
                                              differ("proc rank", g.proc.rank, w.proc.rank),
                                              differ("taken_part", g.taken_part, w.taken_part)});
                         }));
    out.push_back(golden("allgather watch request", wire::WatchRequest{"job-d:*|", 8, {"job-d:0", "job-d:*"}},
                         [](const wire::WatchRequest& g, const wire::WatchRequest& w) {
                             return first_of({differ("signature", g.signature, w.signature), differ("seq", g.seq, w.seq),
                                              differ("procs", g.procs, w.procs)});
                         }));
    return out;
}

TEST(GrpcommDirectGolden, EveryMessageEncodesAsRecordedForThisProtocolVersion)
{
    wire_golden::expect_encodings_recorded("grpcomm", golden_messages());
}

TEST(GrpcommDirectGolden, TheRecordedBytesDecodeToTheExample) { wire_golden::expect_recorded_bytes_decode(golden_messages()); }

}  // namespace
