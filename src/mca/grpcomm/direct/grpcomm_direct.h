// grpcomm/direct: collectives over the radix routing tree (rml/rml.h).
//
// xcast: the master wraps the message with an op id and sends it to its children; each daemon
// forwards it to its own children before processing it (process-first only for wireup and
// daemon_died, which change the tree the message must then follow), and acknowledges to its parent
// once it has processed the message and every child has acknowledged. On the master, the last
// acknowledgement means the whole DVM has the message: the caller's completion runs then. When the
// tree changes under an op (a daemon lost), children adopted since are sent the op too, and
// departed ones are no longer waited for; a daemon that gets an op twice only acknowledges it.
//
// allgather: each daemon hosting participants contributes its node's data. Shares travel up the
// tree keyed by the daemon that contributed them, so a daemon passes its subtree's shares up once
// it holds one from every participating daemon below it (itself included), and the master
// broadcasts the whole, in daemon order. Keying by daemon makes sending again harmless: when the
// tree is repaired, a daemon whose parent changed sends what it holds to the new parent. A daemon
// hosting participants that leaves fails the collective everywhere instead of leaving it waiting.
// So does a participant's time limit (grpcomm_direct_deadline.cc): the daemon whose limit passes
// first asks the master, which marks the collective released and broadcasts its failure. And so
// does a participating process that ended before it took part (grpcomm_direct_ended.cc), unless
// the collective is optional: then the daemons hosting nothing but such processes, or that left,
// are dropped from the participants, and the master's release names the processes left out.
// Successive collectives over the same processes are told apart by a per-signature sequence
// number every participant counts alike. A collective that asks for a context id (a PMIx group
// construct) gets it from the master's counter when the master releases the result.
//
// Memory stays bounded for a long-lived DVM: broadcast ids are remembered as a low-water mark plus
// the few seen above it, and everything kept per signature goes when its job is released.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "mca/grpcomm/grpcomm.h"
#include "rml/buffer.h"
#include "rml/radix_tree.h"
#include "rml/rml.h"
#include "runtime/node.h"

struct event_base;

namespace prte::grpcomm::direct {

// How signatures name a process ("nspace:rank", "nspace:*" for a whole job) and how one
// collective is keyed ("<signature>#<seq>"). grpcomm_direct_allgather.cc.
std::string proc_text(const runtime::ProcessName& proc);
std::string op_key(const std::string& signature, uint64_t seq);
// A signature's key: its sorted processes and its id ("ns:1,ns:2|id"); `procs` gets the sorted list.
std::string signature_key(const Signature& signature, std::vector<std::string>& procs);
// The daemons hosting the processes a signature names, from the job maps every daemon holds;
// whether a signature names a process of the job (grpcomm_direct_allgather.cc); whether `procs`
// names the process "ns:rank" (grpcomm_direct_ended.cc).
std::set<runtime::Rank> hosting_daemons(const std::vector<std::string>& procs);
bool signature_mentions_job(const std::string& signature, const std::string& nspace);
bool names_process(const std::vector<std::string>& procs, const std::string& proc, const std::string& nspace);
// A process on the wire: its namespace and rank. read_proc() fails the reader on a namespace no
// process can have (empty, or longer than runtime::kMaxNspaceLength; grpcomm_direct_allgather.cc).
void write_proc(rml::Writer& w, const runtime::ProcessName& proc);
bool read_proc(rml::Reader& r, runtime::ProcessName& proc);

// The module's messages, each with its encoder and decoder (a decoder fails naming the message and
// the field, and leaves the message unspecified), defined in the file that sends it. Their bytes
// are part of the wire protocol: test/unit/grpcomm_direct_test.cc holds them to the golden
// encodings recorded for rml::kProtocolVersion.
namespace wire {
// rml::tag::xcast: a broadcast's id, the tag its message is for, and the message
// (grpcomm_direct_xcast.cc).
struct Envelope {
    uint64_t id = 0;
    rml::Tag tag = 0;
    rml::Payload message;
};
rml::Payload encode(const Envelope& e);
Status decode(const rml::Payload& in, Envelope& e);
// rml::tag::xcast_ack: a broadcast done at the sender and below it.
rml::Payload encode_ack(uint64_t id);
Status decode_ack(const rml::Payload& in, uint64_t& id);
// rml::tag::allgather: a subtree's shares of one collective, by contributing daemon
// (grpcomm_direct_allgather.cc).
struct Contribution {
    std::string signature;
    uint64_t seq = 0;
    std::vector<std::string> procs;
    bool assign_context_id = false;
    bool optional = false;
    std::map<runtime::Rank, rml::Payload> shares;
};
rml::Payload encode(const Contribution& c);
Status decode(const rml::Payload& in, Contribution& c);
// rml::tag::allgather_release: the master's combined result, broadcast.
struct Release {
    std::string signature;
    uint64_t seq = 0;
    uint64_t context_id = 0;
    rml::Payload data;
    std::vector<runtime::ProcessName> left_out;
};
rml::Payload encode(const Release& r);
Status decode(const rml::Payload& in, Release& r);
// rml::tag::allgather_abort: a participant's daemon asks the master to fail a collective
// (grpcomm_direct_deadline.cc).
struct Abort {
    std::string signature;
    uint64_t seq = 0;
    std::vector<std::string> procs;
    Errc code = Errc::internal;
    std::string message;
};
rml::Payload encode(const Abort& a);
Status decode(const rml::Payload& in, Abort& a);
// rml::tag::allgather_failed: the master's word that it failed, broadcast.
struct Failure {
    std::string signature;
    uint64_t seq = 0;
    Errc code = Errc::internal;
    std::string message;
};
rml::Payload encode(const Failure& f);
Status decode(const rml::Payload& in, Failure& f);
// rml::tag::participant_ended and participant_ended_all: a process that ended, and per signature
// how many of those collectives its daemon contributed to (grpcomm_direct_ended.cc).
struct EndedParticipant {
    runtime::ProcessName proc;
    std::map<std::string, uint64_t> taken_part;
};
rml::Payload encode(const EndedParticipant& e);
Status decode(const rml::Payload& in, EndedParticipant& e);
// rml::tag::allgather_watch_request and allgather_watch: a collective to watch normal ends for
// (grpcomm_direct_watch.cc); `what` names the one decoded in a refusal.
struct WatchRequest {
    std::string signature;
    uint64_t seq = 0;
    std::vector<std::string> procs;
};
rml::Payload encode(const WatchRequest& w);
Status decode(const rml::Payload& in, WatchRequest& w, const char* what = "allgather watch request");
}  // namespace wire

// What the module needs of the daemon's messaging: who it is, the routing tree, sending and
// receiving by tag, news of the tree changing, and timers (a collective's time limit). In a daemon
// this is the messenger and the progress loop (messenger_transport()); unit tests run several
// modules in one process over a fake network (test/unit/grpcomm_direct_test.cc).
class Transport {
  public:
    virtual ~Transport() = default;
    virtual runtime::Rank self() const = 0;
    virtual const rml::RadixTree& tree() const = 0;
    virtual Status send(runtime::Rank dest, rml::Tag tag, rml::Payload payload) = 0;
    // Straight to `dest` over a connection of its own, whatever the tree says (an acknowledgement
    // to the daemon that sent a broadcast: this daemon's tree may not know yet that it adopted it).
    virtual Status send_direct(runtime::Rank dest, rml::Tag tag, rml::Payload payload) = 0;
    virtual void register_handler(rml::Tag tag, rml::Handler handler) = 0;
    virtual void add_tree_listener(std::function<void()> listener) = 0;
    // Runs this daemon's own handler for `tag` (the master's part of what it broadcasts).
    virtual void dispatch(runtime::Rank origin, rml::Tag tag, rml::Payload&& payload) = 0;
    virtual event_base* timer_base() = 0;
};
std::unique_ptr<Transport> messenger_transport();

class DirectModule final : public Module {
  public:
    explicit DirectModule(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}

    Status init() override;
    Status xcast(rml::Tag tag, const rml::Payload& message, XcastCompletion on_complete) override;
    Status allgather(const Signature& signature, const rml::Payload& contribution,
                     AllgatherCallback on_complete) override;
    void job_released(const std::string& nspace) noexcept override;
    void participant_ended(const runtime::ProcessName& proc) noexcept override;
    bool watches(const runtime::ProcessName& proc) noexcept override;
    void process_left(const runtime::ProcessName& proc) noexcept override;
    void cancel(const Signature& signature, const Status& why, bool started_here) noexcept override;
    void end_everywhere(const Signature& signature, const Status& why) noexcept override;
    void finalize() noexcept override;

  private:
    struct Deadline;  // grpcomm_direct_deadline.cc
    struct XcastOp {
        rml::Tag tag = 0;
        rml::Payload message;  // the wrapped form, as forwarded
        std::set<runtime::Rank> sent;
        std::set<runtime::Rank> pending;
        bool processed = false;
        // The daemon it came from, which waits for this daemon's acknowledgement: the parent
        // when it was sent, or the master when it adopted this daemon and sent it on (its tree
        // may not say so yet: the loss that moved it comes in a later broadcast).
        runtime::Rank from = runtime::kInvalidRank;
        XcastCompletion on_complete;
    };
    struct GatherOp {
        std::string signature;           // sorted procs and id: what the sequence counts over
        uint64_t seq = 0;
        std::vector<std::string> procs;  // "nspace:rank", for working out the participants
        std::set<runtime::Rank> participants;
        std::map<runtime::Rank, rml::Payload> shares;  // by contributing daemon
        AllgatherCallback on_complete;                 // participants only
        runtime::Rank sent_to = runtime::kInvalidRank;  // the parent it last went up to
        bool released = false;                          // the master has broadcast the result
        bool assign_context_id = false;                 // some participant asked for one
        bool optional = false;                          // leaves out ended processes (Signature::optional)
        std::vector<runtime::ProcessName> left_out;              // those it left out so far (optional only)
        std::shared_ptr<Deadline> deadline;             // this daemon's caller's time limit
    };

    void on_xcast(runtime::Rank origin, rml::Payload&& payload);
    void on_ack(runtime::Rank origin, rml::Payload&& payload);
    void start_op(uint64_t id, XcastOp op);
    void forward(uint64_t id, XcastOp& op);
    void process(uint64_t id, XcastOp& op);
    void maybe_finish(uint64_t id);
    void on_tree_changed();

    bool first_sight(uint64_t id);

    void on_gather(runtime::Rank origin, rml::Payload&& payload);
    void on_release(runtime::Rank origin, rml::Payload&& payload);
    GatherOp* gather_op(const std::string& signature, uint64_t seq, const std::vector<std::string>& procs,
                        bool optional);
    void refresh_participants(GatherOp& op) const;
    // The last sequence number of the signature released here (0: none).
    uint64_t released_through(const std::string& signature) const;
    bool has_subtree_shares(const GatherOp& op) const;
    runtime::Rank departed_participant(const GatherOp& op) const;
    void maybe_send_up(GatherOp& op);
    void fail_gather(const std::string& key, const Status& why, const runtime::ProcessName* ended = nullptr);
    void mark_released(const std::string& signature, uint64_t seq);
    void gathers_after_tree_change();

    void arm_deadline(GatherOp& op, std::chrono::milliseconds limit);
    void deadline_passed(const std::string& key);
    void on_abort(runtime::Rank origin, rml::Payload&& payload);
    void fail_everywhere(GatherOp& op, const Status& why);
    void on_failed(runtime::Rank origin, rml::Payload&& payload);

    // A process that ended, and per signature naming it, how many of those collectives its daemon
    // contributed to (so the process took part in): any numbered above that fails.
    struct Ended {
        runtime::ProcessName proc;
        std::map<std::string, uint64_t> taken_part;
    };
    void apply_ended(Ended ended);
    void on_ended(runtime::Rank origin, rml::Payload&& payload);
    void on_ended_all(runtime::Rank origin, rml::Payload&& payload);
    const Ended* ended_participant(const std::vector<std::string>& procs, const std::string& signature,
                                   uint64_t seq) const;
    // Every such process: those an optional collective leaves out.
    std::vector<const Ended*> ended_participants(const std::vector<std::string>& procs, const std::string& signature,
                                                 uint64_t seq) const;

    // Watches for normal ends (grpcomm_direct_watch.cc): on the daemons hosting a watched
    // collective's processes, the collectives under way by op key; this node's processes that
    // ended normally, by name, until their job is released; on the master, the op keys passed on.
    struct Watch {
        std::string signature;
        uint64_t seq = 0;
        std::vector<std::string> procs;
    };
    void request_watch(const std::string& signature, uint64_t seq, const std::vector<std::string>& procs);
    void on_watch_request(runtime::Rank origin, rml::Payload&& payload);
    void on_watch(runtime::Rank origin, rml::Payload&& payload);
    void drop_watches(const std::string& signature, uint64_t released);
    void forget_watches(const std::string& nspace);
    std::map<std::string, Watch> watches_;
    std::map<std::string, runtime::ProcessName> left_;
    std::set<std::pair<std::string, uint64_t>> watches_passed_on_;  // (signature, seq)

    std::unique_ptr<Transport> transport_;
    uint64_t next_op_ = 1;
    std::map<uint64_t, XcastOp> ops_;
    // Broadcast ids seen: all below seen_below_, and those in seen_above_. Ids arrive in order
    // except around a tree repair, so the set holds a handful.
    uint64_t seen_below_ = 0;
    std::set<uint64_t> seen_above_;
    // Per signature: the last sequence number this daemon started, and the last one released
    // (a share arriving for a released collective is a late copy and is dropped).
    std::map<std::string, uint64_t> signature_seq_;
    std::map<std::string, uint64_t> released_seq_;
    std::map<std::string, GatherOp> gathers_;  // by "<signature>#<seq>"
    std::map<std::string, Ended> ended_;         // by process ("nspace:rank"), until its job is released
    // Master: the next group context id. Never reset, so no id is issued twice in a DVM's life.
    uint64_t next_context_id_ = 1;
};

}  // namespace prte::grpcomm::direct
