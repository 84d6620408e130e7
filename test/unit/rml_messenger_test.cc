// The messenger (src/rml/rml.cc) facing its peers over loopback: frames whose origin cannot be
// right are dropped (this daemon's own rank, no rank, a call home relayed by another daemon) while
// relayed frames are delivered; a message beyond the frame limit is refused to its sender with an
// error and the peer stays connected; connections still authenticating are bounded, the oldest
// giving way, so strangers cannot hold every socket; the heartbeat (src/rml/heartbeat.cc)
// finds a silent child while it hears one busy with a long frame; and a message to itself arrives
// on a later turn, or not at all once the messenger has stopped.
#include "rml/rml.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rml/auth.h"
#include "rml_test_loop.h"
#include "runtime/loop_timer.h"

namespace {

using prte::rml::Connection;
using prte::rml::Frame;
using prte::rml::Messenger;
using prte::rml::Payload;
using prte::runtime::kInvalidRank;
using prte::runtime::Rank;
using prte::test::RawClient;
using prte::test::handshake_by_hand;
using prte::test::header;
using prte::test::TestLoop;
namespace tag = prte::rml::tag;

class RmlMessenger : public ::testing::Test {
  protected:
    void start(prte::rml::Limits limits = {})
    {
        prte::rml::Options o;
        o.self = 0;
        o.secret = secret_;
        o.if_include = {"lo"};  // loopback only
        o.limits = limits;
        limits_ = limits;
        prte::Status st = messenger().start(loop_.base(), o);
        ASSERT_TRUE(st) << st.message();
        const std::string prefix = "tcp://";
        address_ = messenger().uri().substr(prefix.size());
        port_ = static_cast<uint16_t>(std::stoi(address_.substr(address_.rfind(':') + 1)));
    }
    void TearDown() override
    {
        peers_.clear();
        messenger().stop();
    }
    static Messenger& messenger() { return Messenger::instance(); }

    // A daemon of rank `rank` connecting to the messenger; what it receives goes to `got`.
    Connection& peer(Rank rank, std::vector<Frame>& got, bool& closed)
    {
        Connection::Events e;
        e.frame = [&got](Connection&, Frame&& f) { got.push_back(std::move(f)); };
        e.closed = [&closed](Connection&, const std::string&) { closed = true; };
        peers_.push_back(Connection::initiate(loop_.base(), {address_}, rank, 0, secret_, std::move(e), limits_));
        peers_.back()->start();
        return *peers_.back();
    }

    TestLoop loop_;
    std::string secret_ = prte::rml::auth::make_secret();
    prte::rml::Limits limits_;
    std::string address_;
    uint16_t port_ = 0;
    std::vector<std::unique_ptr<Connection>> peers_;
};

TEST_F(RmlMessenger, FramesWhoseOriginCannotBeRightAreDroppedAndRelayedOnesDelivered)
{
    start();
    std::vector<std::pair<Rank, prte::rml::Tag>> delivered;
    bool marker = false;
    messenger().register_handler(tag::plm, [&](Rank origin, Payload&&) { delivered.push_back({origin, tag::plm}); });
    messenger().register_handler(tag::daemon_report,
                                 [&](Rank origin, Payload&&) { delivered.push_back({origin, tag::daemon_report}); });
    messenger().register_handler(tag::xcast_ack, [&](Rank, Payload&&) { marker = true; });
    std::vector<Frame> got;
    bool closed = false;
    Connection& one = peer(1, got, closed);
    EXPECT_TRUE(one.send(Frame{0, 0, tag::plm, 1, {}}));             // claims to be the messenger itself
    EXPECT_TRUE(one.send(Frame{kInvalidRank, 0, tag::plm, 2, {}}));  // claims no daemon
    EXPECT_TRUE(one.send(Frame{1, kInvalidRank, tag::plm, 3, {}}));  // for no daemon
    EXPECT_TRUE(one.send(Frame{2, 0, tag::daemon_report, 4, {}}));   // daemon 2's call home, through daemon 1
    EXPECT_TRUE(one.send(Frame{1, 0, tag::daemon_report, 5, {}}));   // daemon 1's own call home
    EXPECT_TRUE(one.send(Frame{7, 0, tag::plm, 6, {}}));             // relayed from below daemon 1
    EXPECT_TRUE(one.send(Frame{1, 0, tag::xcast_ack, 7, {}}));       // the end (frames arrive in order)
    ASSERT_TRUE(loop_.run_until([&] { return marker; }));
    using Seen = std::vector<std::pair<Rank, prte::rml::Tag>>;
    EXPECT_EQ(delivered, (Seen{{1, tag::daemon_report}, {7, tag::plm}}));
    EXPECT_FALSE(closed) << "a dropped frame must not cost the connection";
    EXPECT_EQ(messenger().connected_peers(), std::set<Rank>{1});
}

TEST_F(RmlMessenger, AMessageBeyondTheFrameLimitIsRefusedToItsSender)
{
    prte::rml::Limits limits;
    limits.max_payload = 1000;
    start(limits);
    std::vector<Frame> got;
    bool closed = false;
    peer(1, got, closed);
    ASSERT_TRUE(loop_.run_until([&] { return messenger().connected_peers().count(1) == 1; }));
    prte::Status st = messenger().send(1, tag::launch_apps, Payload(1001, 0));
    EXPECT_FALSE(st);
    EXPECT_EQ(st.message(), "a message of 1001 bytes (tag 5) for daemon 1 is larger than the 1000 bytes a frame may carry");
    st = messenger().send_direct(1, tag::launch_apps, Payload(4000, 0));
    EXPECT_FALSE(st);
    EXPECT_TRUE(messenger().send(1, tag::launch_apps, Payload(1000, 0)));
    ASSERT_TRUE(loop_.run_until([&] { return !got.empty(); }));
    EXPECT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].payload.size(), 1000u);
    EXPECT_FALSE(closed) << "the peer dropped the connection, as it would for a lost daemon";
}

TEST_F(RmlMessenger, ConnectionsStillAuthenticatingAreBoundedTheOldestGivingWay)
{
    prte::rml::Limits limits;
    limits.max_strangers = 4;
    start(limits);
    size_t rejected_before = messenger().rejected_connections();
    std::vector<std::unique_ptr<RawClient>> strangers;
    for (int i = 0; i < 4; ++i) {
        strangers.push_back(std::make_unique<RawClient>(port_));
        RawClient& s = *strangers.back();
        // Each is accepted (and greeted) before the next arrives, so their age is their order.
        ASSERT_TRUE(loop_.run_until([&] { return s.poll() || s.received() == 40; })) << "stranger " << i;
    }
    strangers.push_back(std::make_unique<RawClient>(port_));
    RawClient& newest = *strangers.back();
    RawClient& oldest = *strangers.front();
    ASSERT_TRUE(loop_.run_until([&] { return newest.poll() || newest.received() == 40; }));
    ASSERT_TRUE(loop_.run_until([&] { return oldest.poll(); }, 3000)) << "the oldest stranger still holds its socket";
    EXPECT_EQ(messenger().rejected_connections(), rejected_before + 1);
    for (size_t i = 1; i < strangers.size(); ++i) EXPECT_FALSE(strangers[i]->poll()) << "stranger " << i;
    // A daemon still gets in.
    std::vector<Frame> got;
    bool closed = false;
    peer(2, got, closed);
    ASSERT_TRUE(loop_.run_until([&] { return messenger().connected_peers().count(2) == 1; }));
}

// A child that sends nothing is found silent once the timeout has passed, once; a child in the
// middle of a long frame, its bytes trickling in, is heard all along: any bytes count, not only
// whole frames (a daemon busy sending is not a hung one).
TEST_F(RmlMessenger, TheHeartbeatFindsTheSilentChildAndHearsOneBusySending)
{
    start();
    messenger().set_size(3);  // daemons 1 and 2 are this master's children
    std::vector<Rank> silent;
    messenger().start_heartbeat(std::chrono::milliseconds(400),
                                [&](Rank child, std::chrono::milliseconds) { silent.push_back(child); });
    RawClient quiet(port_), busy(port_);
    ASSERT_TRUE(handshake_by_hand(loop_, quiet, 1, secret_));
    ASSERT_TRUE(handshake_by_hand(loop_, busy, 2, secret_));
    busy.write(header(2, 0, tag::plm, 1, 1000));
    // Three timeouts of the loop running, the long frame's payload arriving 10 bytes at a time.
    for (int i = 0; i < 30; ++i) {
        busy.write(std::string(10, 'x'));
        loop_.run_until([] { return false; }, 40);
    }
    EXPECT_EQ(silent, std::vector<Rank>{1});
}

// Delivered later, never inside send(): a handler sending to itself must not re-enter its caller.
// One still waiting when the messenger stops is dropped with the messenger's queue, not left on
// the loop to arrive after it (or to leak when the loop goes first).
TEST_F(RmlMessenger, AMessageToItselfArrivesLaterAndNotOnceTheMessengerHasStopped)
{
    start();
    int delivered = 0;
    messenger().register_handler(tag::plm, [&](Rank origin, Payload&&) {
        EXPECT_EQ(origin, 0u);
        ++delivered;
    });
    ASSERT_TRUE(messenger().send(0, tag::plm, {}));
    EXPECT_EQ(delivered, 0) << "delivered inside send()";
    ASSERT_TRUE(loop_.run_until([&] { return delivered == 1; }));
    ASSERT_TRUE(messenger().send(0, tag::plm, {}));
    messenger().stop();
    // libevent runs every timer due before this one first: "not delivered" is judged after it.
    bool sentinel_fired = false;
    prte::runtime::LoopTimer sentinel(loop_.base(), [&] { sentinel_fired = true; });
    sentinel.arm(std::chrono::milliseconds(20));
    ASSERT_TRUE(loop_.run_until([&] { return sentinel_fired; }));
    EXPECT_EQ(delivered, 1) << "a message to itself was delivered after the messenger stopped";
    messenger().register_handler(tag::plm, [](Rank, Payload&&) {});  // `delivered` goes with this test
}

}  // namespace

// oob_tcp_if_include (Options::if_include): a network selects the interfaces whose address is in
// it; a malformed one stops the messenger with an error naming it, where it used to match nothing.
TEST_F(RmlMessenger, AnIncludedNetworkSelectsTheInterfacesInIt)
{
    prte::rml::Options o;
    o.secret = secret_;
    o.if_include = {"127.0.0.0/8"};
    prte::Status st = messenger().start(loop_.base(), o);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(messenger().uri().rfind("tcp://127.", 0), 0u) << messenger().uri();
}

TEST_F(RmlMessenger, AMalformedIncludedNetworkIsRefusedNamingIt)
{
    for (std::string bad : {"127.0.0.0/33", "127.0.0.0/8x", "127.0.0/8", "127.0.0.0/", "127.0.0.0/-1", "lo/8"}) {
        prte::rml::Options o;
        o.secret = secret_;
        o.if_include = {"lo", bad};
        prte::Status st = messenger().start(loop_.base(), o);
        EXPECT_EQ(st.code(), prte::Errc::bad_param) << bad;
        EXPECT_EQ(st.message(), "oob_tcp_if_include: '" + bad +
                                    "' is not an IPv4 network (address/bits, e.g. 198.18.0.0/24, bits from 0 to 32) "
                                    "nor an interface name");
        messenger().stop();
    }
}
