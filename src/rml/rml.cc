#include "rml/rml.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rml/heartbeat.h"
#include "util/strings.h"

namespace prte::rml {
namespace {

using runtime::kInvalidRank;
using runtime::Rank;

output::VerboseStream& verbose_stream()
{
    static output::VerboseStream stream("rml");
    return stream;
}

struct Ipv4Network {
    in_addr address{};
    int bits = 0;

    bool contains(in_addr addr) const
    {
        uint32_t mask = bits == 0 ? 0 : htonl(~uint32_t(0) << (32 - bits));
        return (addr.s_addr & mask) == (address.s_addr & mask);
    }
};

// An include-list entry with a '/' is a network: nullopt unless it is exactly "a.b.c.d/bits".
std::optional<Ipv4Network> parse_network(const std::string& item)
{
    auto slash = item.find('/');
    Ipv4Network net;
    auto bits = util::parse_int(std::string_view(item).substr(slash + 1));
    if (!bits || *bits < 0 || *bits > 32) return std::nullopt;
    if (inet_pton(AF_INET, item.substr(0, slash).c_str(), &net.address) != 1) return std::nullopt;
    net.bits = static_cast<int>(*bits);
    return net;
}

// "198.18.0.0/24" matches the address; anything else is an interface name.
bool selected(const std::vector<std::string>& include, const char* ifname, in_addr addr)
{
    for (const auto& item : include) {
        if (item.find('/') == std::string::npos) {
            if (item == ifname) return true;
            continue;
        }
        // Messenger::start refused a malformed network before listening.
        if (auto net = parse_network(item); net && net->contains(addr)) return true;
    }
    return false;
}

// The addresses to listen on: the selected interfaces', or every interface that is up (loopback
// last, used only when there is nothing else).
std::vector<std::string> listen_addresses(const std::vector<std::string>& include)
{
    std::vector<std::string> out, loopback;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return {"127.0.0.1"};
    for (ifaddrs* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
        in_addr addr = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &addr, text, sizeof(text));
        if (!include.empty()) {
            if (selected(include, i->ifa_name, addr)) out.push_back(text);
        } else if (i->ifa_flags & IFF_LOOPBACK) {
            loopback.push_back(text);
        } else {
            out.push_back(text);
        }
    }
    freeifaddrs(list);
    if (include.empty() && out.empty()) out = loopback;
    return out;
}

std::vector<std::string> addresses_of(const std::string& uri)
{
    const std::string prefix = "tcp://";
    if (uri.rfind(prefix, 0) != 0) return {};
    return util::split(uri.substr(prefix.size()), ',');
}

// What a frame's origin can be checked against: the rank its connection authenticated. A frame
// whose origin differs from that peer is being relayed, and relays are legitimate: every hop of
// the tree passes on frames from further away. Whether this peer may relay for that origin is not
// checked: it depends on the tree, and during a repair or a grow the receiver's view of the tree
// may lag the sender's (a parent adopts a departed daemon's children before they learn of it).
// What holds whatever the tree is checked: an origin and a destination that name a daemon, never
// this daemon's own frames coming back (a loop, or a forgery), and for a daemon's call home (sent
// straight to the master, never relayed) an origin that is the peer itself.
// Returns why the frame is refused, or nullptr.
const char* unacceptable(const Connection& c, const Frame& f, Rank self)
{
    if (f.origin == kInvalidRank || f.dest == kInvalidRank) return "it names no daemon as its origin or destination";
    if (f.origin == self) return "it claims to come from this daemon";
    if (f.tag == tag::daemon_report && f.origin != c.peer()) return "a daemon's report must come from that daemon itself";
    return nullptr;
}

}  // namespace

std::optional<std::string> check_if_include(const std::string& list)
{
    for (const auto& item : util::split(list, ',', true)) {
        if (item.find('/') == std::string::npos || parse_network(item)) continue;
        return fmt::format("'{}' is not an IPv4 network (address/bits, e.g. 198.18.0.0/24, bits from 0 to 32) "
                           "nor an interface name",
                           item);
    }
    return std::nullopt;
}

Messenger::Messenger() : tree_(std::make_unique<RadixTree>(0, 1, 64)) {}

Messenger::~Messenger() = default;

Messenger& Messenger::instance()
{
    static Messenger messenger;
    return messenger;
}

const output::VerboseStream& Messenger::verbose() const { return verbose_stream(); }

Status Messenger::start(event_base* base, Options options)
{
    base_ = base;
    options_ = std::move(options);
    verbose_stream().set_level(options_.verbose);
    tree_ = std::make_unique<RadixTree>(options_.self, options_.self + 1, options_.radix);
    if (auto problem = check_if_include(util::join(options_.if_include, ","))) {
        return {Errc::bad_param, fmt::format("oob_tcp_if_include: {}", *problem)};
    }
    std::vector<std::string> addresses = listen_addresses(options_.if_include);
    if (addresses.empty()) {
        return {Errc::bad_param, fmt::format("oob_tcp_if_include '{}' matches no IPv4 interface that is up",
                                             util::join(options_.if_include, ","))};
    }
    std::vector<std::string> endpoints;
    for (const auto& a : addresses) {
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        inet_pton(AF_INET, a.c_str(), &sa.sin_addr);
        auto on_accept = [](evconnlistener*, evutil_socket_t fd, sockaddr* peer, int, void* arg) {
            auto* self = static_cast<Messenger*>(arg);
            char text[INET_ADDRSTRLEN] = "?";
            auto* in = reinterpret_cast<sockaddr_in*>(peer);
            inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
            self->adopt(Connection::accepted(self->base_, fd, fmt::format("{}:{}", text, ntohs(in->sin_port)),
                                             self->options_.self, self->options_.secret, self->events(),
                                             self->options_.limits));
        };
        evconnlistener* l = evconnlistener_new_bind(base, on_accept, this,
                                                    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
                                                    128, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
        if (!l) {
            verbose_stream()(1, "rml: cannot listen on {}: {}", a, std::strerror(errno));
            continue;
        }
        evconnlistener_set_error_cb(l, [](evconnlistener*, void* arg) {
            static_cast<Messenger*>(arg)->pause_accepting(EVUTIL_SOCKET_ERROR());
        });
        sockaddr_in bound{};
        socklen_t len = sizeof(bound);
        getsockname(evconnlistener_get_fd(l), reinterpret_cast<sockaddr*>(&bound), &len);
        endpoints.push_back(fmt::format("{}:{}", a, ntohs(bound.sin_port)));
        listeners_.push_back(l);
    }
    if (endpoints.empty()) return {Errc::unreachable, "the daemon cannot listen on any address"};
    // The heartbeat's frames carry nothing: their arrival (events().activity) is the message.
    register_handler(tag::heartbeat, [](Rank, Payload&&) {});
    uri_ = "tcp://" + util::join(endpoints, ",");
    contacts_[options_.self] = uri_;
    verbose_stream()(5, "rml: daemon {} listening at {}", options_.self, uri_);
    return {};
}

// accept() failed for a reason other than a connection gone before it was taken (libevent
// retries those): most often no descriptor is left (EMFILE, ENFILE). The pending connection stays
// in the backlog, so the listener would wake at once to fail again, for ever (301,725 identical
// warnings in a minute, measured): it sleeps instead, and the first time says so, once.
void Messenger::pause_accepting(int error)
{
    ++accept_pauses_;
    for (auto* l : listeners_) evconnlistener_disable(l);
    if (!accept_resume_.bound()) {
        accept_resume_ = runtime::LoopTimer(base_, [this] {
            for (auto* l : listeners_) evconnlistener_enable(l);
        });
    }
    accept_resume_.arm(kAcceptPause);
    if (accept_pauses_ == 1) {
        bool descriptors = error == EMFILE || error == ENFILE;
        output::warning("daemon {}: cannot accept connections: {}{}; not accepting any for {} s at a time while it "
                        "lasts (said once; rml_base_verbose 1 shows each pause)",
                        options_.self, std::strerror(error),
                        descriptors ? " (raise the descriptor limit, ulimit -n, or lower rml_max_authenticating)" : "",
                        kAcceptPause.count());
    } else {
        verbose_stream()(1, "rml: accept failed again ({}): pause {} for {} s", std::strerror(error), accept_pauses_,
                         kAcceptPause.count());
    }
}

// One line per connection turned away, but not a flood of lines for a flood of connections: at
// most kListedRejections a minute; past that they are counted, and the next minute's first line
// says how many went unlisted.
void Messenger::report_rejection(const std::string& why)
{
    auto now = std::chrono::steady_clock::now();
    if (now - rejections_since_ >= std::chrono::minutes(1)) {
        rejections_since_ = now;
        listed_rejections_ = 0;
    }
    if (listed_rejections_ < kListedRejections) {
        ++listed_rejections_;
        std::string unlisted = unlisted_rejections_ == 0 ? std::string()
                                                         : fmt::format(" ({} more turned away before, unlisted)",
                                                                       unlisted_rejections_);
        unlisted_rejections_ = 0;
        output::warning("daemon {}: {}{}", options_.self, why, unlisted);
        if (listed_rejections_ == kListedRejections) {
            output::warning("daemon {}: {} connections turned away within a minute; further ones this minute are "
                            "counted, not listed (rml_base_verbose 5 lists each)",
                            options_.self, kListedRejections);
        }
        return;
    }
    ++unlisted_rejections_;
    verbose_stream()(5, "rml: {}", why);
}

void Messenger::stop()
{
    heartbeat_.reset();
    for (auto* l : listeners_) evconnlistener_free(l);
    listeners_.clear();
    accept_resume_ = runtime::LoopTimer();
    for (auto& c : connections_) c->close();
    connections_.clear();
    graveyard_.clear();
    // What was deferred is dropped, not left to fire on a messenger that has stopped (or a loop
    // that has gone).
    next_turn_ = runtime::LoopTimer();
    deferred_.clear();
    base_ = nullptr;
}

void Messenger::set_contact(Rank rank, const std::string& uri) { contacts_[rank] = uri; }

std::string Messenger::contact(Rank rank) const
{
    auto it = contacts_.find(rank);
    return it == contacts_.end() ? std::string() : it->second;
}

void Messenger::set_size(uint32_t size)
{
    if (size <= tree_->size()) return;
    tree_->resize(size);
    for (auto& l : tree_listeners_) l();
}

void Messenger::dispatch(Rank origin, Tag tag, Payload&& payload)
{
    Frame f{origin, options_.self, tag, 0, std::move(payload)};
    deliver(std::move(f));
}

void Messenger::flush()
{
    for (auto& c : connections_) c->flush();
}

void Messenger::register_handler(Tag tag, Handler handler) { handlers_[tag] = std::move(handler); }

Connection::Events Messenger::events()
{
    Connection::Events e;
    e.ready = [this](Connection& c) { on_ready(c); };
    e.frame = [this](Connection& c, Frame&& f) { on_frame(c, std::move(f)); };
    e.closed = [this](Connection& c, const std::string& why) { on_closed(c, why); };
    e.activity = [this](Connection& c) {
        if (heartbeat_) heartbeat_->heard(c.peer());
    };
    return e;
}

// Accepted connections still in their handshake are bounded (Limits::max_strangers): a stranger
// (a port scanner, a misdirected client, a flood) costs a socket until its handshake deadline, so
// past the bound the oldest of them gives way to the newcomer. The oldest, not the newest: a
// daemon calling home answers within one round trip, so it is never the oldest for long, while
// refusing newcomers would let whoever holds the slots lock every daemon out. The bound is well
// above what a DVM's start-up has in flight at once (the listen backlog of 128 bounds what one
// loop turn accepts).
void Messenger::adopt(std::unique_ptr<Connection> c)
{
    std::vector<Connection*> strangers;
    for (auto& live : connections_) {
        if (!live->initiated() && !live->authenticated()) strangers.push_back(live.get());
    }
    connections_.push_back(std::move(c));
    if (strangers.empty() || strangers.size() < options_.limits.max_strangers) return;
    // connections_ keeps the order of arrival: the first stranger is the oldest. Its closed event
    // counts and reports it like any other rejection.
    Connection* oldest = strangers.front();
    oldest->reject(fmt::format("rejected {}: {} connections are already waiting to authenticate; the oldest gives way",
                               oldest->address(), strangers.size()));
}

Connection* Messenger::connection_to(Rank rank, bool create)
{
    Connection* pending = nullptr;
    for (auto& c : connections_) {
        if (c->peer() != rank) continue;
        if (c->ready()) return c.get();
        if (c->initiated()) pending = c.get();
    }
    if (pending || !create) return pending;
    std::vector<std::string> addresses = addresses_of(contact(rank));
    if (addresses.empty()) return nullptr;
    verbose_stream()(10, "rml: connecting to daemon {} at {}", rank, contact(rank));
    connections_.push_back(
        Connection::initiate(base_, addresses, options_.self, rank, options_.secret, events(), options_.limits));
    Connection* c = connections_.back().get();
    c->start();
    // start() may already have failed (no address usable): then it is in the graveyard.
    for (auto& live : connections_) {
        if (live.get() == c) return c;
    }
    return nullptr;
}

void Messenger::on_ready(Connection& c)
{
    verbose_stream()(10, "rml: connection with daemon {} ({}) authenticated", c.peer(), c.address());
    if (ready_listener_) ready_listener_(c.peer(), c.socket());
}

void Messenger::on_frame(Connection& c, Frame&& f)
{
    if (const char* why = unacceptable(c, f, options_.self)) {
        output::warning("daemon {}: dropped a frame (tag {}, from daemon {} to daemon {}) received from daemon {} ({}): {}",
                        options_.self, f.tag, f.origin, f.dest, c.peer(), c.address(), why);
        return;
    }
    if (f.dest == options_.self) {
        deliver(std::move(f));
    } else {
        forward(std::move(f));
    }
}

void Messenger::deliver(Frame&& f)
{
    auto it = handlers_.find(f.tag);
    if (it == handlers_.end()) {
        // A fixed tag nobody here handles comes from an authenticated daemon that numbers its
        // messages differently: a build whose tags changed without a new protocol version. Not our
        // own copy of a broadcast (the master's of a wireup or launch, which it acted on as it sent).
        if (f.tag < tag::first_dynamic && f.origin != options_.self) {
            output::error("rml: daemon {} sent a message with tag {}, which this prte (wire protocol {}) does not "
                          "know, though it announced the same protocol: is every node running the same prte build?",
                          f.origin, f.tag, kProtocolVersion);
        } else {
            verbose_stream()(1, "rml: dropped a message with unknown tag {} from daemon {}", f.tag, f.origin);
        }
        return;
    }
    it->second(f.origin, std::move(f.payload));
}

void Messenger::forward(Frame&& f)
{
    Tag tag = f.tag;
    Rank origin = f.origin;
    if (Status st = transmit(std::move(f)); !st) {
        verbose_stream()(1, "rml: daemon {} dropped a message with tag {} from {}: {}", options_.self, tag, origin,
                         st.message());
    }
}

// The next hop along the tree; a rank the tree does not cover yet (start-up) is sent straight to.
Status Messenger::transmit(Frame&& f)
{
    Rank hop = tree_->next_hop(f.dest);
    if (hop == kInvalidRank) {
        if (tree_->departed(f.dest)) return {Errc::unreachable, fmt::format("daemon {} has left the DVM", f.dest)};
        hop = f.dest;
    }
    Connection* c = connection_to(hop, true);
    if (!c) return {Errc::unreachable, fmt::format("no route to daemon {} (via {}): no contact", f.dest, hop)};
    return c->send(f);
}

Status Messenger::send(Rank dest, Tag tag, Payload payload)
{
    if (!base_) return {Errc::internal, "the messenger is not running"};
    Frame f{options_.self, dest, tag, next_seq_++, std::move(payload)};
    if (dest == options_.self) {
        // Never inline: a handler sending to itself must not re-enter its caller.
        defer([this, f = std::move(f)]() mutable { deliver(std::move(f)); });
        return {};
    }
    return transmit(std::move(f));
}

Status Messenger::send_direct(Rank dest, Tag tag, Payload payload)
{
    if (!base_) return {Errc::internal, "the messenger is not running"};
    Connection* c = connection_to(dest, true);
    if (!c) return {Errc::unreachable, fmt::format("no contact for daemon {}", dest)};
    return c->send(Frame{options_.self, dest, tag, next_seq_++, std::move(payload)});
}

Status Messenger::send_if_connected(Rank dest, Tag tag, Payload payload)
{
    if (!base_) return {Errc::internal, "the messenger is not running"};
    Connection* c = connection_to(dest, false);
    if (!c) return {Errc::unreachable, fmt::format("no connection to daemon {}", dest)};
    return c->send(Frame{options_.self, dest, tag, next_seq_++, std::move(payload)});
}

void Messenger::bury(Connection& c)
{
    for (auto it = connections_.begin(); it != connections_.end(); ++it) {
        if (it->get() != &c) continue;
        graveyard_.push_back(std::move(*it));
        connections_.erase(it);
        break;
    }
    defer([this] { graveyard_.clear(); });
}

void Messenger::defer(std::function<void()> work)
{
    if (!base_) return;  // stopped: nothing of it runs any more
    deferred_.push_back(std::move(work));
    if (!next_turn_.bound()) next_turn_ = runtime::LoopTimer(base_, [this] { run_deferred(); });
    if (!next_turn_.armed()) next_turn_.arm(std::chrono::milliseconds(0));
}

// The whole queue at once: work deferred by this batch runs on the turn after. A piece of work
// that stops the messenger ends the batch (stop() has dropped the queue; the rest goes with it).
void Messenger::run_deferred()
{
    std::vector<std::function<void()>> batch = std::move(deferred_);
    deferred_.clear();
    for (auto& work : batch) {
        if (!base_) return;
        work();
    }
}

void Messenger::on_closed(Connection& c, const std::string& why)
{
    Rank peer = c.peer();
    if (!c.initiated() && !c.authenticated()) {
        // A stranger, junk, or a wrong secret: say so and carry on.
        ++rejected_;
        report_rejection(why);
        bury(c);
        return;
    }
    verbose_stream()(5, "rml: connection with daemon {} ({}) closed: {}", peer, c.address(), why);
    bury(c);
    if (connection_to(peer, false) != nullptr) return;  // another connection still reaches it
    if (tree_->departed(peer)) return;                  // already known gone
    if (!lost_peer_) return;
    // Deferred, not inline: the handler repairs the tree and may close connections, and this runs
    // inside the closed connection's own callback.
    defer([this, peer] {
        if (tree_->departed(peer) || connection_to(peer, false) != nullptr) return;
        if (lost_peer_) lost_peer_(peer);
    });
}

size_t Messenger::mark_departed(const std::vector<Rank>& ranks)
{
    // Only the connections to this daemon's own departing children are closed: they are those
    // ranks' lifelines, and the order to leave went down them just before (so it arrives first).
    // Any other connection to a departing daemon (the master keeps each daemon's call-home one)
    // is left for it to close as it goes: closing it here could beat the order to it.
    std::vector<Rank> children = tree_->children();
    size_t added = tree_->mark_departed(ranks);
    if (added == 0) return 0;
    ++repairs_;
    // A departed rank is never used again (grows append new ranks): its contact goes, so a DVM
    // that grows and shrinks for months does not keep one per rank it ever had.
    for (Rank r : ranks) contacts_.erase(r);
    verbose_stream()(5, "rml: repair {}: daemon(s) {} departed; routing tree now:\n{}", repairs_, fmt::join(ranks, ","),
                     tree_->describe());
    std::vector<Connection*> closing;
    for (auto& c : connections_) {
        Rank peer = c->peer();
        if (std::find(ranks.begin(), ranks.end(), peer) != ranks.end() &&
            std::find(children.begin(), children.end(), peer) != children.end()) {
            closing.push_back(c.get());
        }
    }
    for (Connection* c : closing) {
        c->close_after_flush();
        bury(*c);
    }
    for (auto& l : tree_listeners_) l();
    return added;
}

void Messenger::start_heartbeat(std::chrono::milliseconds timeout,
                                std::function<void(Rank, std::chrono::milliseconds)> on_silent)
{
    heartbeat_ = std::make_unique<Heartbeat>(base_, *this, timeout, std::move(on_silent));
}

void Messenger::drop_connections(Rank rank)
{
    std::vector<Connection*> closing;
    for (auto& c : connections_) {
        if (c->peer() == rank) closing.push_back(c.get());
    }
    for (Connection* c : closing) {
        c->close_after_flush();
        bury(*c);
    }
}

void Messenger::set_absent(const std::set<Rank>& ranks)
{
    if (!tree_->set_absent(ranks)) return;
    verbose_stream()(5, "rml: daemon(s) {} still starting; routing tree now:\n{}", fmt::join(ranks, ","),
                     tree_->describe());
    for (auto& l : tree_listeners_) l();
}

void Messenger::connect_lifeline()
{
    Rank parent = tree_->parent();
    if (parent != kInvalidRank) connection_to(parent, true);
}

std::set<Rank> Messenger::connected_peers() const
{
    std::set<Rank> out;
    for (const auto& c : connections_) {
        if (c->ready()) out.insert(c->peer());
    }
    return out;
}

}  // namespace prte::rml
