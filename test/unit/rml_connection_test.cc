// One daemon-to-daemon connection (src/rml/connection.cc) over real loopback sockets: the
// handshake proves both ends know the secret and that the connecting side reached the daemon it
// meant to; a wrong secret, a rank that is not the expected one or that is the acceptor's own is
// refused; a handshake must complete within its deadline however its bytes trickle in; a frame
// beyond the payload limit is refused by its sender with an error (the connection stays up)
// and, if sent anyway, closes the connection at the receiver; and an authenticated peer writing
// seeded garbage after good frames is cut off with a reason once those frames are delivered.
// The proofs themselves are checked against HMAC-SHA256 computed elsewhere (Python's hmac).
#include "rml/connection.h"

#include <event2/listener.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rml/auth.h"
#include "rml_test_loop.h"

namespace {

using prte::rml::Connection;
using prte::rml::Frame;
using prte::rml::Limits;
using prte::rml::Payload;
using prte::runtime::Rank;
using prte::test::RawClient;
using prte::test::handshake_by_hand;
using prte::test::header;
using prte::test::TestLoop;

// What one end saw: frames, and why it closed (once).
struct Seen {
    bool ready = false;
    std::vector<Frame> frames;
    std::vector<std::string> closed;
};

Connection::Events record(Seen& seen)
{
    Connection::Events e;
    e.ready = [&seen](Connection&) { seen.ready = true; };
    e.frame = [&seen](Connection&, Frame&& f) { seen.frames.push_back(std::move(f)); };
    e.closed = [&seen](Connection&, const std::string& why) { seen.closed.push_back(why); };
    return e;
}

// Daemon `self` accepting connections on a loopback port; connections are kept (never destroyed
// inside their own callbacks) until the test ends.
class Acceptor {
  public:
    Acceptor(TestLoop& loop, Rank self, std::string secret, Limits limits = {})
        : loop_(loop), self_(self), secret_(std::move(secret)), limits_(limits)
    {
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        listener_ = evconnlistener_new_bind(
            loop.base(),
            [](evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
                auto* a = static_cast<Acceptor*>(arg);
                a->connections.push_back(
                    Connection::accepted(a->loop_.base(), fd, "test peer", a->self_, a->secret_, record(a->seen), a->limits_));
            },
            this, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 16, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
        sockaddr_in bound{};
        socklen_t len = sizeof(bound);
        getsockname(evconnlistener_get_fd(listener_), reinterpret_cast<sockaddr*>(&bound), &len);
        port = ntohs(bound.sin_port);
    }
    ~Acceptor()
    {
        connections.clear();
        evconnlistener_free(listener_);
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port); }

    uint16_t port = 0;
    Seen seen;
    std::vector<std::unique_ptr<Connection>> connections;

  private:
    TestLoop& loop_;
    Rank self_;
    std::string secret_;
    Limits limits_;
    evconnlistener* listener_ = nullptr;
};

const std::string kSecret = prte::rml::auth::make_secret();

std::unique_ptr<Connection> dial(TestLoop& loop, const Acceptor& to, Rank self, Rank expected, Seen& seen,
                                 const std::string& secret = kSecret, Limits limits = {})
{
    auto c = Connection::initiate(loop.base(), {to.address()}, self, expected, secret, record(seen), limits);
    c->start();
    return c;
}

bool contains(const std::vector<std::string>& reasons, const std::string& part)
{
    for (const auto& r : reasons) {
        if (r.find(part) != std::string::npos) return true;
    }
    return false;
}

std::string hex(const prte::rml::auth::Mac& mac)
{
    std::string out(mac.size() * 2 + 1, '\0');
    for (size_t i = 0; i < mac.size(); ++i) std::snprintf(&out[2 * i], 3, "%02x", mac[i]);
    out.pop_back();
    return out;
}

// Known answers from an independent implementation (Python: hmac.new(secret, role + server nonce +
// client nonce + ranks as 4 big-endian bytes each, hashlib.sha256)): the handshake is HMAC-SHA256
// whatever library computes it, and the two roles' proofs differ.
TEST(RmlAuth, ProofsAreHmacSha256OverRoleNoncesAndRanks)
{
    std::string secret;
    for (int i = 0; i < 4; ++i) secret += "0123456789abcdef";
    prte::rml::auth::Nonce server{}, client{};
    for (size_t i = 0; i < server.size(); ++i) {
        server[i] = static_cast<uint8_t>(i);
        client[i] = static_cast<uint8_t>(32 + i);
    }
    prte::rml::auth::Mac c = prte::rml::auth::client_proof(secret, server, client, 7);
    prte::rml::auth::Mac s = prte::rml::auth::server_proof(secret, server, client, 7, 0);
    EXPECT_EQ(hex(c), "eeaef8f5348a4267bfc0e72113a03c30d99093b3d9d0936efac95c3ef1185f89");
    EXPECT_EQ(hex(s), "b832c8c603a6930ddec7856dc87f5dffebeede7d5211a48fdf90f8bd49a3ff4b");
    EXPECT_TRUE(prte::rml::auth::equal(c, c));
    EXPECT_FALSE(prte::rml::auth::equal(c, s));
    prte::rml::auth::Mac last_bit = c;
    last_bit.back() ^= 1;
    EXPECT_FALSE(prte::rml::auth::equal(c, last_bit));
}

TEST(RmlConnection, BothEndsAuthenticateAndExchangeFrames)
{
    TestLoop loop;
    Acceptor master(loop, 0, kSecret);
    Seen client;
    auto c = dial(loop, master, 3, 0, client);
    ASSERT_TRUE(loop.run_until([&] { return client.ready && master.seen.ready; }));
    EXPECT_EQ(c->peer(), 0u);
    ASSERT_EQ(master.connections.size(), 1u);
    EXPECT_EQ(master.connections[0]->peer(), 3u);
    EXPECT_TRUE(c->send(Frame{3, 0, 6, 1, {1, 2, 3}}));
    EXPECT_TRUE(master.connections[0]->send(Frame{0, 3, 5, 9, Payload(5000, 7)}));
    ASSERT_TRUE(loop.run_until([&] { return !client.frames.empty() && !master.seen.frames.empty(); }));
    EXPECT_EQ(master.seen.frames[0].origin, 3u);
    EXPECT_EQ(master.seen.frames[0].tag, 6u);
    EXPECT_EQ(master.seen.frames[0].payload, (Payload{1, 2, 3}));
    EXPECT_EQ(client.frames[0].seq, 9u);
    EXPECT_EQ(client.frames[0].payload, Payload(5000, 7));
    EXPECT_TRUE(client.closed.empty());
    EXPECT_TRUE(master.seen.closed.empty());
}

TEST(RmlConnection, AWrongSecretIsRefused)
{
    TestLoop loop;
    Acceptor master(loop, 0, kSecret);
    Seen client;
    const std::string wrong = prte::rml::auth::make_secret();  // a connection keeps a reference to its secret
    auto c = dial(loop, master, 3, 0, client, wrong);
    ASSERT_TRUE(loop.run_until([&] { return !master.seen.closed.empty() && !client.closed.empty(); }));
    EXPECT_EQ(master.seen.closed[0], "rejected test peer claiming to be daemon 3: it does not know the DVM's secret");
    EXPECT_FALSE(client.ready);
}

// The acceptor proves its rank too: a contact now held by another daemon (a stale URI, a port
// reused) must not pass for the daemon the connector meant to reach.
TEST(RmlConnection, TheAcceptorMustBeTheDaemonTheConnectorMeant)
{
    TestLoop loop;
    Acceptor other(loop, 4, kSecret);
    Seen client;
    auto c = dial(loop, other, 3, 5, client);
    ASSERT_TRUE(loop.run_until([&] { return !client.closed.empty(); }));
    EXPECT_FALSE(client.ready);
    EXPECT_EQ(client.closed[0], other.address() + " is daemon 4, not daemon 5 (a stale contact?)");
}

TEST(RmlConnection, APeerClaimingTheAcceptorsOwnRankIsRefused)
{
    TestLoop loop;
    Acceptor master(loop, 0, kSecret);
    Seen client;
    auto c = dial(loop, master, 0, 0, client);
    ASSERT_TRUE(loop.run_until([&] { return !master.seen.closed.empty(); }));
    EXPECT_EQ(master.seen.closed[0], "rejected test peer claiming to be daemon 0: that is this daemon's own rank");
    EXPECT_FALSE(master.seen.ready);
}

// Daemons of different wire protocols refuse each other with both versions named, rather than
// misreading each other's messages (issue 26, item 7).
TEST(RmlConnection, ADaemonOfAnotherProtocolVersionIsRefusedNamingBoth)
{
    TestLoop loop;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    std::vector<evutil_socket_t> accepted;
    evconnlistener* newer = evconnlistener_new_bind(
        loop.base(),
        [](evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
            static_cast<std::vector<evutil_socket_t>*>(arg)->push_back(fd);
            const uint32_t version = prte::rml::kProtocolVersion + 1;
            std::string greeting = "PRTH";
            for (int shift = 24; shift >= 0; shift -= 8) greeting += static_cast<char>((version >> shift) & 0xff);
            greeting += std::string(prte::rml::auth::kNonceSize, 'n');
            ASSERT_EQ(::write(fd, greeting.data(), greeting.size()), static_cast<ssize_t>(greeting.size()));
        },
        &accepted, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 16, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    ASSERT_NE(newer, nullptr);
    sockaddr_in bound{};
    socklen_t len = sizeof(bound);
    getsockname(evconnlistener_get_fd(newer), reinterpret_cast<sockaddr*>(&bound), &len);
    std::string address = "127.0.0.1:" + std::to_string(ntohs(bound.sin_port));

    Seen client;
    auto c = Connection::initiate(loop.base(), {address}, 3, 0, kSecret, record(client), {});
    c->start();
    ASSERT_TRUE(loop.run_until([&] { return !client.closed.empty(); }));
    EXPECT_FALSE(client.ready);
    EXPECT_EQ(client.closed[0], address + " speaks prte wire protocol " +
                                    std::to_string(prte::rml::kProtocolVersion + 1) + ", this prte " +
                                    std::to_string(prte::rml::kProtocolVersion) +
                                    ": run the same prte version on every node");
    c.reset();
    for (evutil_socket_t fd : accepted) evutil_closesocket(fd);
    evconnlistener_free(newer);
}

// A per-read timeout alone restarts with every byte: a stranger sending one byte every 100 ms
// would hold the connection for ever. The deadline counts from the accept.
TEST(RmlConnection, AHandshakeTricklingInIsCutOffAtItsDeadline)
{
    TestLoop loop;
    Limits limits;
    limits.handshake_ms = 300;
    Acceptor master(loop, 0, kSecret, limits);
    RawClient stranger(master.port);
    ASSERT_TRUE(stranger.connected());
    event* trickle = event_new(
        loop.base(), -1, EV_PERSIST, [](evutil_socket_t, short, void* arg) { static_cast<RawClient*>(arg)->write("P"); },
        &stranger);
    timeval every{0, 100000};
    event_add(trickle, &every);
    bool cut = loop.run_until([&] { return stranger.poll(); }, 3000);
    event_free(trickle);
    ASSERT_TRUE(cut) << "the stranger still holds its connection after 3 s";
    ASSERT_EQ(master.seen.closed.size(), 1u);
    EXPECT_EQ(master.seen.closed[0], "rejected test peer: no handshake within 300 ms");
}

TEST(RmlConnection, ASilentStrangerIsCutOffAtTheDeadline)
{
    TestLoop loop;
    Limits limits;
    limits.handshake_ms = 200;
    Acceptor master(loop, 0, kSecret, limits);
    RawClient stranger(master.port);
    ASSERT_TRUE(loop.run_until([&] { return stranger.poll(); }, 3000));
    EXPECT_EQ(stranger.received(), 40u);  // the greeting: magic, version, nonce
    EXPECT_TRUE(contains(master.seen.closed, "no handshake within 200 ms"));
}

TEST(RmlConnection, JunkInsteadOfAProofIsRefused)
{
    TestLoop loop;
    Acceptor master(loop, 0, kSecret);
    RawClient stranger(master.port);
    stranger.write(std::string(200, 'x'));
    ASSERT_TRUE(loop.run_until([&] { return stranger.poll(); }));
    EXPECT_EQ(master.seen.closed, std::vector<std::string>{"rejected test peer: not a prte handshake"});
}

// The receiver closes a connection announcing a frame beyond the limit (the stream cannot be
// resynchronised), which its owner takes for a lost daemon: the sender must refuse it first.
TEST(RmlConnection, TheSenderRefusesAFrameBeyondTheLimitAndTheConnectionStaysUp)
{
    TestLoop loop;
    Limits limits;
    limits.max_payload = 1000;
    Acceptor master(loop, 0, kSecret, limits);
    Seen client;
    auto c = dial(loop, master, 3, 0, client, kSecret, limits);
    ASSERT_TRUE(loop.run_until([&] { return client.ready && master.seen.ready; }));
    prte::Status st = c->send(Frame{3, 0, 6, 1, Payload(1001, 1)});
    EXPECT_FALSE(st);
    EXPECT_EQ(st.message(), "a message of 1001 bytes (tag 6) for daemon 0 is larger than the 1000 bytes a frame may carry");
    EXPECT_TRUE(c->send(Frame{3, 0, 6, 2, Payload(1000, 2)}));
    ASSERT_TRUE(loop.run_until([&] { return !master.seen.frames.empty(); }));
    EXPECT_EQ(master.seen.frames.size(), 1u);
    EXPECT_EQ(master.seen.frames[0].seq, 2u);
    EXPECT_TRUE(master.seen.closed.empty());
    EXPECT_TRUE(client.closed.empty());
}

TEST(RmlConnection, TheReceiverClosesOnAFrameBeyondItsLimit)
{
    TestLoop loop;
    Limits small;
    small.max_payload = 1000;
    Acceptor master(loop, 0, kSecret, small);
    Seen client;
    auto c = dial(loop, master, 3, 0, client);  // a sender with the default, larger limit
    ASSERT_TRUE(loop.run_until([&] { return client.ready && master.seen.ready; }));
    EXPECT_TRUE(c->send(Frame{3, 0, 6, 1, Payload(1500, 1)}));
    ASSERT_TRUE(loop.run_until([&] { return !master.seen.closed.empty(); }));
    EXPECT_EQ(master.seen.closed[0], "daemon 3 (test peer) sent a frame of 1500 bytes, more than the 1000 allowed");
    EXPECT_TRUE(master.seen.frames.empty());
}

TEST(RmlConnection, FramesQueuedBeforeTheHandshakeGoOutAfterIt)
{
    TestLoop loop;
    Acceptor master(loop, 0, kSecret);
    Seen client;
    auto c = dial(loop, master, 2, 0, client);
    EXPECT_TRUE(c->send(Frame{2, 0, 2, 1, {9}}));
    ASSERT_TRUE(loop.run_until([&] { return !master.seen.frames.empty(); }));
    EXPECT_EQ(master.seen.frames[0].payload, Payload{9});
}

// An authenticated peer gone wrong (a bug, another version): whatever it writes, the receiver
// delivers whole frames or closes with one line saying why, and never crashes or reads past a frame.
TEST(RmlConnectionFuzz, AnAuthenticatedPeerWritingGarbageIsCutOffWithAReason)
{
    TestLoop loop;
    Limits limits;
    limits.max_payload = 4096;
    Acceptor master(loop, 0, kSecret, limits);
    std::mt19937 rng(1125);
    size_t cut_off = 0;
    for (int round = 0; round < 40; ++round) {
        auto owned = std::make_unique<RawClient>(master.port);
        RawClient& peer = *owned;
        ASSERT_TRUE(handshake_by_hand(loop, peer, 5, kSecret)) << "round " << round;
        size_t frames_before = master.seen.frames.size();
        std::string bytes;
        int valid = static_cast<int>(rng() % 4);
        for (int i = 0; i < valid; ++i) {
            uint32_t length = rng() % 64;
            bytes += header(5, 0, rng() % 30, static_cast<uint32_t>(i), length) + std::string(length, 'x');
        }
        unsigned ending = rng() % 3;
        switch (ending) {
        case 0:  // noise, at least a header's worth
            for (int i = 0, n = 24 + static_cast<int>(rng() % 200); i < n; ++i) bytes += static_cast<char>(rng());
            break;
        case 1:  // a length beyond the limit
            bytes += header(5, 0, 6, 99, 4097 + rng() % 100000);
            break;
        default:  // a good header with a payload that has not come in full
            bytes += header(5, 0, 6, 99, 100) + std::string(rng() % 100, 'y');
            break;
        }
        size_t closed_before = master.seen.closed.size();
        peer.write(bytes);
        bool garbage = ending != 2;
        // Garbage closes the connection (after the whole frames before it); an unfinished frame waits.
        ASSERT_TRUE(loop.run_until([&] {
            return garbage ? master.seen.closed.size() > closed_before
                           : master.seen.frames.size() == frames_before + static_cast<size_t>(valid);
        })) << "round " << round;
        EXPECT_EQ(master.seen.frames.size() - frames_before, static_cast<size_t>(valid)) << "round " << round;
        if (!garbage) {
            EXPECT_EQ(master.seen.closed.size(), closed_before) << master.seen.closed.back();
            owned.reset();  // the peer leaves; its close is seen before the next round counts
            ASSERT_TRUE(loop.run_until([&] { return master.seen.closed.size() > closed_before; }));
            EXPECT_EQ(master.seen.closed.back(), "connection closed by the peer");
            continue;
        }
        for (size_t i = closed_before; i < master.seen.closed.size(); ++i) {
            const std::string& why = master.seen.closed[i];
            ++cut_off;
            EXPECT_TRUE(why.find("bad frame magic") != std::string::npos || why.find("more than the 4096 allowed") != std::string::npos)
                << why;
            EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        }
    }
    EXPECT_GT(cut_off, 10u);
}

}  // namespace
