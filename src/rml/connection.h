// One authenticated TCP connection between two daemons, on the progress thread's libevent loop.
//
// Life of a connection: the accepting side sends a greeting with a nonce; the connecting side
// answers with its rank, its nonce and its proof (auth.h); the accepting side checks it and answers
// with its own rank and proof, which the connecting side checks against the daemon it meant to
// reach; from then on both sides exchange frames. Anything else — a stranger's junk, a wrong
// secret, a rank that is not the expected one, a frame with a bad magic or an oversize length, a
// handshake not complete within its deadline (however the bytes trickle in) — closes the
// connection with a one-line reason, and the daemon carries on.
//
// Frame layout (big-endian): "PRTM", origin, destination, tag, sequence, payload length, payload.
// Both ends enforce the same payload limit: the receiver closes a connection that announces more
// (a corrupt stream cannot be resynchronised), so the sender refuses such a frame first, with an
// error for its caller, instead of sending what would look like a lost daemon.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rml/auth.h"
#include "rml/types.h"
#include "runtime/loop_timer.h"
#include "runtime/node.h"
#include "util/status.h"

struct event;
struct event_base;
struct bufferevent;

namespace prte::rml {

struct Frame {
    runtime::Rank origin = runtime::kInvalidRank;
    runtime::Rank dest = runtime::kInvalidRank;
    Tag tag = 0;
    uint32_t seq = 0;
    Payload payload;
};

// What a daemon's connections accept. Every daemon of a DVM uses the defaults; tests shrink them.
struct Limits {
    uint32_t max_payload = 1u << 30;  // bytes in one frame's payload (the length field is 32 bits)
    uint32_t handshake_ms = 10000;    // from connecting or being accepted to authenticated
    // Accepted connections still in their handshake at once (the messenger's bound, rml.cc).
    uint32_t max_strangers = 512;
};

class Connection {
  public:
    struct Events {
        std::function<void(Connection&)> ready;             // handshake done: peer() is known
        std::function<void(Connection&, Frame&&)> frame;    // a whole frame arrived
        std::function<void(Connection&, const std::string& why)> closed;  // once; the owner then drops it
        std::function<void(Connection&)> activity;          // bytes arrived after the handshake (the heartbeat)
    };

    // Both keep `secret` by reference: it must outlive the connection (the messenger's options do).
    // Takes an accepted socket for daemon `self`; `peer_address` names it in messages.
    static std::unique_ptr<Connection> accepted(event_base* base, int fd, std::string peer_address,
                                                runtime::Rank self, const std::string& secret, Events events,
                                                Limits limits = {});
    // Connects to `expected_peer` at the first of `addresses` ("host:port") that answers.
    static std::unique_ptr<Connection> initiate(event_base* base, std::vector<std::string> addresses,
                                                runtime::Rank self, runtime::Rank expected_peer,
                                                const std::string& secret, Events events, Limits limits = {});
    // Begins connecting (an initiated connection); call once the owner has stored the object, as
    // its events may fire from inside.
    void start() { try_next_address(); }
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Queues a frame; frames queued before the handshake completes go out right after it. A payload
    // beyond the limit is refused here, with an error naming it, and nothing is sent.
    Status send(const Frame& frame);
    // Writes what is queued now, blocking (the process is about to exit).
    void flush();
    // Closes without telling the owner (it asked).
    void close();
    // Closes and tells the owner `why`, as any failure does (the owner refuses the connection).
    void reject(const std::string& why);
    // Closes once what is queued has been written (or after a few seconds), without telling the
    // owner: the frame just forwarded to a departing daemon (its shrink order) must reach it
    // before the connection's end does (spec: collective-shrink-completion.txt, "race-free by
    // construction"). The socket outlives this object if need be.
    void close_after_flush();

    runtime::Rank peer() const { return peer_; }
    bool ready() const { return phase_ == Phase::ready; }
    // Completed the handshake at some point (still true after it closed).
    bool authenticated() const { return authenticated_; }
    bool initiated() const { return initiated_; }
    const std::string& address() const { return address_; }
    // The socket, for watching it from outside the event loop (-1 once closed). Never read or write it.
    int socket() const;

    static constexpr uint32_t kMaxPayload = Limits{}.max_payload;

  private:
    enum class Phase { connecting, await_greeting, await_proof, await_answer, ready, closed };

    Connection(event_base* base, const std::string& secret, Events events, Limits limits);
    void arm_handshake_deadline();
    void try_next_address();
    void on_connected();
    void on_readable();
    bool read_handshake();
    bool read_frames();
    void fail(const std::string& why);
    void write_frame(const Frame& frame);
    void become_ready();

    static void read_cb(bufferevent* bev, void* arg);
    static void event_cb(bufferevent* bev, short what, void* arg);
    void handshake_overdue();

    event_base* base_;
    const std::string& secret_;
    Events events_;
    Limits limits_;
    bufferevent* bev_ = nullptr;
    runtime::LoopTimer handshake_deadline_;
    Phase phase_ = Phase::connecting;
    bool initiated_ = false;
    bool authenticated_ = false;
    runtime::Rank self_ = runtime::kInvalidRank;
    runtime::Rank peer_ = runtime::kInvalidRank;
    std::vector<std::string> addresses_;
    size_t next_address_ = 0;
    std::string address_;
    std::string last_connect_error_;
    auth::Nonce my_nonce_{};
    auth::Nonce peer_nonce_{};
    std::deque<Frame> pending_;
};

}  // namespace prte::rml
