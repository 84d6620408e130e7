// RML: messages between the daemons of a DVM (the master is daemon 0).
//
// The messenger listens on TCP, authenticates every connection (connection.h), and routes each
// message along the radix routing tree (radix_tree.h): a message for a rank that is not a
// neighbour goes to the child whose subtree holds it, or else to the parent. Before the tree is
// known (a new daemon calling home) messages go straight to the peer whose contact they have.
//
// Handlers are registered per tag and run on the progress thread. When the last connection to a
// peer closes, the lost-peer handler runs once; what that means (the master gone, a parent to
// replace, a daemon lost) is the program's decision, not the messenger's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rml/connection.h"
#include "rml/radix_tree.h"
#include "rml/types.h"
#include "runtime/loop_timer.h"
#include "util/output.h"
#include "util/status.h"

struct event;
struct event_base;
struct evconnlistener;

namespace prte::rml {

using Handler = std::function<void(runtime::Rank origin, Payload&& payload)>;

struct Options {
    runtime::Rank self = 0;
    std::string secret;
    uint32_t radix = 64;
    // Interfaces or IPv4 networks to listen on and advertise ("lo", "eth0", "198.18.0.0/24"); empty:
    // every IPv4 interface that is up, loopback only when nothing else is.
    std::vector<std::string> if_include;
    Limits limits;  // per connection (connection.h); every daemon of a DVM uses the same
    int verbose = 0;  // rml_base_verbose (5: connections and routes, 10: every connection attempt)
};
// The parameters behind Options (rml_radix, oob_tcp_if_include, rml_base_verbose) are read by
// program/core_params.h: messenger_options().

// Why an oob_tcp_if_include list (comma-separated) has an entry that is neither an interface name
// nor an IPv4 network "address/bits" (bits 0 to 32), nullopt when every entry is one of them. The
// parameter's validator, and Messenger::start's check of its options: a malformed network would
// otherwise match nothing, and the daemon listen somewhere else or nowhere without a word.
std::optional<std::string> check_if_include(const std::string& list);

class Heartbeat;

class Messenger {
  public:
    static Messenger& instance();
    ~Messenger();

    // Listens and makes the URI. On the progress thread (or before it starts).
    Status start(event_base* base, Options options);
    // Closes every connection and listener.
    void stop();
    bool started() const { return base_ != nullptr; }

    const std::string& uri() const { return uri_; }
    runtime::Rank self() const { return options_.self; }

    // Where to reach a daemon: its URI ("tcp://a.b.c.d:port[,a.b.c.d:port...]").
    void set_contact(runtime::Rank rank, const std::string& uri);
    std::string contact(runtime::Rank rank) const;

    RadixTree& tree() { return *tree_; }
    // The DVM now has `size` daemons (ranks 0..size-1); the tree covers them.
    void set_size(uint32_t size);

    void register_handler(Tag tag, Handler handler);
    void set_lost_peer_handler(std::function<void(runtime::Rank)> handler) { lost_peer_ = std::move(handler); }
    // Told of every connection once it is authenticated: its peer and its socket (prted's exit
    // watchdog watches each one to the master, from outside the event loop).
    void set_ready_listener(std::function<void(runtime::Rank, int socket)> listener) { ready_listener_ = std::move(listener); }

    // Sends along the tree (a message for this process is delivered to it, posted, not inline).
    Status send(runtime::Rank dest, Tag tag, Payload payload);
    // Sends over a connection to `dest` itself, opening one if needed.
    Status send_direct(runtime::Rank dest, Tag tag, Payload payload);

    // Sends to `dest` over a connection already open to it (ready or still in its handshake), never
    // opening one: fails when there is none. The heartbeat rides the lifeline the program opened
    // and never opens one of its own - a new connection to a parent could outlive the one whose
    // closing a leaving daemon waits for.
    Status send_if_connected(runtime::Rank dest, Tag tag, Payload payload);

    // Runs the handler for `tag` here, as if the message had arrived (grpcomm unwraps broadcasts).
    void dispatch(runtime::Rank origin, Tag tag, Payload&& payload);
    // Called after every change of the tree's shape (a departure, a resize), on the progress thread.
    void add_tree_listener(std::function<void()> listener) { tree_listeners_.push_back(std::move(listener)); }
    // Writes out everything queued, blocking, before the process exits (an ack must not be lost).
    void flush();

    // Drops `ranks` from the tree (one repair for the batch) and closes their connections once
    // what is queued for them is written, without running the lost-peer handler for them (their
    // loss is already known). Safe inside a connection's own callback: connections are buried,
    // never destroyed there. Returns how many ranks were newly departed (0: no repair).
    size_t mark_departed(const std::vector<runtime::Rank>& ranks);
    // Ranks of daemons still starting (see RadixTree::set_absent).
    void set_absent(const std::set<runtime::Rank>& ranks);
    // How many repairs (mark_departed calls that changed the tree) this process has made.
    size_t repairs() const { return repairs_; }
    // Opens the connection to this daemon's parent now, so its loss is noticed even when nothing
    // is being sent (the lifeline).
    void connect_lifeline();

    // Starts the heartbeat over the tree (heartbeat.h): beats to the parent, and `on_silent` for a
    // child silent for `timeout`. On the progress thread, once started; stop() ends it.
    void start_heartbeat(std::chrono::milliseconds timeout,
                         std::function<void(runtime::Rank, std::chrono::milliseconds)> on_silent);
    // Closes every connection to `rank` once what is queued for it is written (or after a few
    // seconds), without running the lost-peer handler: the master's way of refusing a daemon it
    // declared lost, which learns it from these closing when it runs again (prted/heartbeat.cc).
    void drop_connections(runtime::Rank rank);

    // Connected (authenticated) peers.
    std::set<runtime::Rank> connected_peers() const;
    size_t rejected_connections() const { return rejected_; }
    // A listener's accept() failed with `error` (errno): no listener accepts for a while (rml.cc).
    void pause_accepting(int error);
    size_t accept_pauses() const { return accept_pauses_; }

    const output::VerboseStream& verbose() const;

  private:
    Messenger();

    // How long the listeners sleep after accept() failed (descriptors exhausted, say).
    static constexpr std::chrono::seconds kAcceptPause{1};
    // Connections turned away that are each a warning line, per minute (report_rejection).
    static constexpr size_t kListedRejections = 10;

    void report_rejection(const std::string& why);

    Connection* connection_to(runtime::Rank rank, bool create);
    void adopt(std::unique_ptr<Connection> c);
    void on_ready(Connection& c);
    void on_frame(Connection& c, Frame&& f);
    void on_closed(Connection& c, const std::string& why);
    void deliver(Frame&& f);
    void forward(Frame&& f);
    Status transmit(Frame&& f);
    void bury(Connection& c);
    // Runs `work` on a later turn of the loop, in the order deferred: never inside its caller (a
    // handler sending to itself, a connection closing inside its own callback). The queue is the
    // messenger's, so stop() drops what is left instead of leaving it to the loop.
    void defer(std::function<void()> work);
    void run_deferred();
    Connection::Events events();

    event_base* base_ = nullptr;
    Options options_;
    std::string uri_;
    std::vector<evconnlistener*> listeners_;
    std::unique_ptr<RadixTree> tree_;
    std::map<runtime::Rank, std::string> contacts_;
    std::map<Tag, Handler> handlers_;
    std::function<void(runtime::Rank)> lost_peer_;
    std::function<void(runtime::Rank, int)> ready_listener_;
    // Every live connection; several may lead to one peer (each side connected to the other).
    std::vector<std::unique_ptr<Connection>> connections_;
    std::vector<std::unique_ptr<Connection>> graveyard_;  // freed on the next loop turn, never inside a callback
    std::vector<std::function<void()>> tree_listeners_;
    uint32_t next_seq_ = 0;
    size_t rejected_ = 0;
    size_t repairs_ = 0;
    size_t accept_pauses_ = 0;
    std::chrono::steady_clock::time_point rejections_since_{};  // the minute report_rejection counts in
    size_t listed_rejections_ = 0;
    size_t unlisted_rejections_ = 0;
    runtime::LoopTimer accept_resume_;  // re-enables the listeners after a pause
    std::vector<std::function<void()>> deferred_;  // defer()'s queue, in order
    runtime::LoopTimer next_turn_;                 // armed while deferred_ holds work
    std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace prte::rml
