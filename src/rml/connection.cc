#include "rml/connection.h"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <fcntl.h>

#include <cerrno>
#include <utility>
#include <cstring>

#include <fmt/format.h>

#include "util/strings.h"
#include "util/tcp_nodelay.h"

namespace prte::rml {
namespace {

constexpr char kGreetingMagic[4] = {'P', 'R', 'T', 'H'};
constexpr char kFrameMagic[4] = {'P', 'R', 'T', 'M'};

constexpr size_t kGreetingSize = 4 + 4 + auth::kNonceSize;                    // magic, version, nonce
constexpr size_t kProofSize = 4 + 4 + auth::kNonceSize + auth::kMacSize;      // magic, rank, nonce, mac
constexpr size_t kAnswerSize = 4 + auth::kMacSize;                              // rank, mac
constexpr size_t kHeaderSize = 24;

// A peer that vanishes without closing (its node lost power, a link went down) must still be
// noticed: TCP keepalive probes an idle connection after 2 s, every second, 3 times; unacknowledged
// data gives up after 5 s. Without these a DVM would wait for ever on a dead daemon.
void watch_liveness(int fd)
{
    int on = 1, idle = 2, interval = 1, count = 3;
    unsigned int user_timeout_ms = 5000;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof(user_timeout_ms));
}

void put32(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

uint32_t get32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

bool parse_address(const std::string& text, sockaddr_in& out)
{
    auto colon = text.rfind(':');
    if (colon == std::string::npos) return false;
    std::memset(&out, 0, sizeof(out));
    out.sin_family = AF_INET;
    if (inet_pton(AF_INET, text.substr(0, colon).c_str(), &out.sin_addr) != 1) return false;
    auto port = util::parse_int(std::string_view(text).substr(colon + 1));
    if (!port || *port <= 0 || *port > 65535) return false;
    out.sin_port = htons(static_cast<uint16_t>(*port));
    return true;
}

}  // namespace

Connection::Connection(event_base* base, const std::string& secret, Events events, Limits limits)
    : base_(base), secret_(secret), events_(std::move(events)), limits_(limits)
{
}

Connection::~Connection()
{
    if (bev_) bufferevent_free(bev_);
}

// The handshake must be complete this long after it starts, however its bytes trickle in: a
// per-read timeout alone would let a stranger hold the connection for ever, one byte at a time.
void Connection::arm_handshake_deadline()
{
    if (!handshake_deadline_.bound()) handshake_deadline_ = runtime::LoopTimer(base_, [this] { handshake_overdue(); });
    handshake_deadline_.arm(std::chrono::milliseconds(limits_.handshake_ms));
}

void Connection::handshake_overdue()
{
    if (initiated_) {
        fail(fmt::format("daemon {} at {} did not complete the handshake within {} ms", peer_, address_,
                         limits_.handshake_ms));
    } else {
        fail(fmt::format("rejected {}: no handshake within {} ms", address_, limits_.handshake_ms));
    }
}

std::unique_ptr<Connection> Connection::accepted(event_base* base, int fd, std::string peer_address,
                                                 runtime::Rank self, const std::string& secret, Events events,
                                                 Limits limits)
{
    std::unique_ptr<Connection> c(new Connection(base, secret, std::move(events), limits));
    c->address_ = std::move(peer_address);
    c->self_ = self;
    evutil_make_socket_nonblocking(fd);
    util::set_tcp_nodelay(fd);
    watch_liveness(fd);
    c->bev_ = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(c->bev_, read_cb, nullptr, event_cb, c.get());
    c->arm_handshake_deadline();
    bufferevent_enable(c->bev_, EV_READ | EV_WRITE);
    c->my_nonce_ = auth::make_nonce();
    uint8_t greeting[kGreetingSize];
    std::memcpy(greeting, kGreetingMagic, 4);
    put32(greeting + 4, kProtocolVersion);
    std::memcpy(greeting + 8, c->my_nonce_.data(), auth::kNonceSize);
    bufferevent_write(c->bev_, greeting, sizeof(greeting));
    c->phase_ = Phase::await_proof;
    return c;
}

std::unique_ptr<Connection> Connection::initiate(event_base* base, std::vector<std::string> addresses,
                                                 runtime::Rank self, runtime::Rank expected_peer,
                                                 const std::string& secret, Events events, Limits limits)
{
    std::unique_ptr<Connection> c(new Connection(base, secret, std::move(events), limits));
    c->initiated_ = true;
    c->self_ = self;
    c->peer_ = expected_peer;
    c->addresses_ = std::move(addresses);
    c->my_nonce_ = auth::make_nonce();
    return c;
}

// Called by the owner once the object is stored (callbacks may fire from inside).
void Connection::try_next_address()
{
    if (bev_) {
        bufferevent_free(bev_);
        bev_ = nullptr;
    }
    while (next_address_ < addresses_.size()) {
        address_ = addresses_[next_address_++];
        sockaddr_in sa;
        if (!parse_address(address_, sa)) {
            last_connect_error_ = fmt::format("bad address '{}'", address_);
            continue;
        }
        bev_ = bufferevent_socket_new(base_, -1, BEV_OPT_CLOSE_ON_FREE);
        bufferevent_setcb(bev_, read_cb, nullptr, event_cb, this);
        const timeval tv = runtime::to_timeval(std::chrono::milliseconds(limits_.handshake_ms));
        bufferevent_set_timeouts(bev_, &tv, &tv);
        bufferevent_enable(bev_, EV_READ | EV_WRITE);
        phase_ = Phase::connecting;
        if (bufferevent_socket_connect(bev_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) return;
        last_connect_error_ = fmt::format("{}: {}", address_, std::strerror(errno));
        bufferevent_free(bev_);
        bev_ = nullptr;
    }
    fail(fmt::format("cannot connect to daemon {} ({})", peer_,
                     last_connect_error_.empty() ? "no address" : last_connect_error_));
}

void Connection::on_connected()
{
    util::set_tcp_nodelay(bufferevent_getfd(bev_));
    watch_liveness(bufferevent_getfd(bev_));
    phase_ = Phase::await_greeting;
    arm_handshake_deadline();
}

void Connection::read_cb(bufferevent*, void* arg) { static_cast<Connection*>(arg)->on_readable(); }

void Connection::event_cb(bufferevent*, short what, void* arg)
{
    auto* c = static_cast<Connection*>(arg);
    if (what & BEV_EVENT_CONNECTED) {
        c->on_connected();
        return;
    }
    if (c->phase_ == Phase::connecting) {
        c->last_connect_error_ =
            fmt::format("{}: {}", c->address_, (what & BEV_EVENT_TIMEOUT) ? "timed out" : std::strerror(errno));
        c->try_next_address();
        return;
    }
    if (what & BEV_EVENT_TIMEOUT) {
        c->fail(fmt::format("no handshake from {} within {} ms", c->address_, c->limits_.handshake_ms));
    } else if (!c->authenticated_ && !c->initiated_) {
        c->fail(fmt::format("rejected {}: it left without completing the handshake", c->address_));
    } else if (what & BEV_EVENT_EOF) {
        c->fail("connection closed by the peer");
    } else {
        c->fail(fmt::format("connection error: {}", std::strerror(errno)));
    }
}

void Connection::on_readable()
{
    if (phase_ != Phase::ready && !read_handshake()) return;
    if (phase_ != Phase::ready) return;
    // Any bytes, not only whole frames: a peer in the middle of a long frame is not silent.
    if (events_.activity) events_.activity(*this);
    read_frames();
}

// Returns true once the handshake is complete; false while waiting for more or after failing.
bool Connection::read_handshake()
{
    evbuffer* in = bufferevent_get_input(bev_);
    while (phase_ != Phase::ready && phase_ != Phase::closed) {
        switch (phase_) {
        case Phase::await_greeting: {  // connecting side
            if (evbuffer_get_length(in) < kGreetingSize) return false;
            uint8_t g[kGreetingSize];
            evbuffer_remove(in, g, sizeof(g));
            if (std::memcmp(g, kGreetingMagic, 4) != 0) {
                fail(fmt::format("{} is not a prte daemon", address_));
                return false;
            }
            if (uint32_t theirs = get32(g + 4); theirs != kProtocolVersion) {
                fail(fmt::format("{} speaks prte wire protocol {}, this prte {}: run the same prte version on every "
                                 "node",
                                 address_, theirs, kProtocolVersion));
                return false;
            }
            std::memcpy(peer_nonce_.data(), g + 8, auth::kNonceSize);
            uint8_t proof[kProofSize];
            std::memcpy(proof, kGreetingMagic, 4);
            put32(proof + 4, self_);
            std::memcpy(proof + 8, my_nonce_.data(), auth::kNonceSize);
            auth::Mac mac = auth::client_proof(secret_, peer_nonce_, my_nonce_, self_);
            std::memcpy(proof + 8 + auth::kNonceSize, mac.data(), mac.size());
            bufferevent_write(bev_, proof, sizeof(proof));
            phase_ = Phase::await_answer;
            break;
        }
        case Phase::await_proof: {  // accepting side
            if (evbuffer_get_length(in) < kProofSize) return false;
            uint8_t p[kProofSize];
            evbuffer_remove(in, p, sizeof(p));
            if (std::memcmp(p, kGreetingMagic, 4) != 0) {
                fail(fmt::format("rejected {}: not a prte handshake", address_));
                return false;
            }
            runtime::Rank rank = get32(p + 4);
            std::memcpy(peer_nonce_.data(), p + 8, auth::kNonceSize);
            auth::Mac theirs;
            std::memcpy(theirs.data(), p + 8 + auth::kNonceSize, theirs.size());
            if (!auth::equal(theirs, auth::client_proof(secret_, my_nonce_, peer_nonce_, rank))) {
                fail(fmt::format("rejected {} claiming to be daemon {}: it does not know the DVM's secret", address_,
                                 rank));
                return false;
            }
            // The secret proves membership of the DVM, not a rank: at least the rank must be one
            // that another daemon can hold.
            if (rank == runtime::kInvalidRank || rank == self_) {
                fail(fmt::format("rejected {} claiming to be daemon {}: {}", address_, rank,
                                 rank == self_ ? "that is this daemon's own rank" : "no daemon has that rank"));
                return false;
            }
            peer_ = rank;
            uint8_t answer[kAnswerSize];
            put32(answer, self_);
            auth::Mac mac = auth::server_proof(secret_, my_nonce_, peer_nonce_, rank, self_);
            std::memcpy(answer + 4, mac.data(), mac.size());
            bufferevent_write(bev_, answer, sizeof(answer));
            become_ready();
            break;
        }
        case Phase::await_answer: {  // connecting side
            if (evbuffer_get_length(in) < kAnswerSize) return false;
            uint8_t a[kAnswerSize];
            evbuffer_remove(in, a, sizeof(a));
            runtime::Rank rank = get32(a);
            auth::Mac theirs;
            std::memcpy(theirs.data(), a + 4, theirs.size());
            if (!auth::equal(theirs, auth::server_proof(secret_, peer_nonce_, my_nonce_, self_, rank))) {
                fail(fmt::format("{} answered as daemon {} without knowing the DVM's secret", address_, peer_));
                return false;
            }
            // Frames from this connection are checked against its peer's rank: it must be the
            // daemon this one meant to reach, not whoever holds that address now.
            if (rank != peer_) {
                fail(fmt::format("{} is daemon {}, not daemon {} (a stale contact?)", address_, rank, peer_));
                return false;
            }
            become_ready();
            break;
        }
        default: return false;
        }
    }
    return phase_ == Phase::ready;
}

void Connection::become_ready()
{
    phase_ = Phase::ready;
    authenticated_ = true;
    bufferevent_set_timeouts(bev_, nullptr, nullptr);
    handshake_deadline_.cancel();
    while (!pending_.empty()) {
        write_frame(pending_.front());
        pending_.pop_front();
    }
    if (events_.ready) events_.ready(*this);
}

bool Connection::read_frames()
{
    evbuffer* in = bufferevent_get_input(bev_);
    while (phase_ == Phase::ready) {
        if (evbuffer_get_length(in) < kHeaderSize) return true;
        uint8_t h[kHeaderSize];
        evbuffer_copyout(in, h, sizeof(h));
        if (std::memcmp(h, kFrameMagic, 4) != 0) {
            fail(fmt::format("garbage from daemon {} ({}): bad frame magic", peer_, address_));
            return false;
        }
        uint32_t length = get32(h + 20);
        if (length > limits_.max_payload) {
            fail(fmt::format("daemon {} ({}) sent a frame of {} bytes, more than the {} allowed", peer_, address_,
                             length, limits_.max_payload));
            return false;
        }
        if (evbuffer_get_length(in) < kHeaderSize + length) return true;
        evbuffer_drain(in, kHeaderSize);
        Frame f;
        f.origin = get32(h + 4);
        f.dest = get32(h + 8);
        f.tag = get32(h + 12);
        f.seq = get32(h + 16);
        f.payload.resize(length);
        if (length) evbuffer_remove(in, f.payload.data(), length);
        // The handler may close this connection (the owner then destroys it later, never inside
        // the callback): stop reading once it is no longer ready.
        if (events_.frame) events_.frame(*this, std::move(f));
        if (phase_ != Phase::ready) return false;
    }
    return false;
}

void Connection::write_frame(const Frame& f)
{
    uint8_t h[kHeaderSize];
    std::memcpy(h, kFrameMagic, 4);
    put32(h + 4, f.origin);
    put32(h + 8, f.dest);
    put32(h + 12, f.tag);
    put32(h + 16, f.seq);
    put32(h + 20, static_cast<uint32_t>(f.payload.size()));
    evbuffer* out = bufferevent_get_output(bev_);
    evbuffer_add(out, h, sizeof(h));
    if (!f.payload.empty()) evbuffer_add(out, f.payload.data(), f.payload.size());
}

Status Connection::send(const Frame& frame)
{
    if (frame.payload.size() > limits_.max_payload) {
        return {Errc::out_of_resource,
                fmt::format("a message of {} bytes (tag {}) for daemon {} is larger than the {} bytes a frame may carry",
                            frame.payload.size(), frame.tag, frame.dest, limits_.max_payload)};
    }
    if (phase_ == Phase::closed) return {Errc::unreachable, fmt::format("the connection to daemon {} is closed", peer_)};
    if (phase_ == Phase::ready) {
        write_frame(frame);
    } else {
        pending_.push_back(frame);
    }
    return {};
}

void Connection::flush()
{
    if (!bev_ || phase_ != Phase::ready) return;
    evutil_socket_t fd = bufferevent_getfd(bev_);
    evbuffer* out = bufferevent_get_output(bev_);
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    while (evbuffer_get_length(out) > 0) {
        if (evbuffer_write(out, fd) <= 0) break;
    }
    fcntl(fd, F_SETFL, flags);
}

int Connection::socket() const
{
    return bev_ ? static_cast<int>(bufferevent_getfd(bev_)) : -1;
}

void Connection::close()
{
    phase_ = Phase::closed;
    handshake_deadline_.cancel();
    if (bev_) {
        bufferevent_free(bev_);
        bev_ = nullptr;
    }
}

void Connection::close_after_flush()
{
    phase_ = Phase::closed;
    handshake_deadline_.cancel();
    if (!bev_) return;
    bufferevent* bev = std::exchange(bev_, nullptr);
    bufferevent_disable(bev, EV_READ);
    if (evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
        bufferevent_free(bev);
        return;
    }
    // The bufferevent frees itself once drained, on an error, or after the timeout.
    auto done = [](bufferevent* b, void*) {
        if (evbuffer_get_length(bufferevent_get_output(b)) == 0) bufferevent_free(b);
    };
    auto gone = [](bufferevent* b, short, void*) { bufferevent_free(b); };
    bufferevent_setcb(bev, nullptr, done, gone, nullptr);
    const timeval tv = runtime::to_timeval(std::chrono::seconds(5));
    bufferevent_set_timeouts(bev, nullptr, &tv);
    bufferevent_enable(bev, EV_WRITE);
}

void Connection::reject(const std::string& why)
{
    // Its descriptor goes now, not when libevent finalizes the bufferevent on a later loop turn: a
    // flood is accepted many connections in one turn, and each one turned away must make room at
    // once, or the bound on strangers would not bound descriptors (issue 27, item 9).
    if (bev_) {
        evutil_socket_t fd = bufferevent_getfd(bev_);
        if (fd >= 0 && bufferevent_setfd(bev_, -1) == 0) evutil_closesocket(fd);
    }
    fail(why);
}

void Connection::fail(const std::string& why)
{
    if (phase_ == Phase::closed) return;
    close();
    if (events_.closed) events_.closed(*this, why);
}

}  // namespace prte::rml
