// The reliable broadcast (see grpcomm_direct.h).
#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "rml/buffer.h"
#include "rml/connection.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::grpcomm::direct {
namespace {

using runtime::kInvalidRank;
using runtime::Rank;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// Beyond this many ids seen out of order, the oldest gap is given up on: an op that never came
// is not coming (its sender would have re-sent it at the tree repair), and memory stays bounded.
constexpr size_t kMaxSeenAbove = 1024;

// Tags that change the tree the broadcast follows: the daemon must act on them before it forwards
// (spec: collective-shrink-completion.txt; the shrink order on tag::daemon stays forward-first).
bool process_first(rml::Tag tag) { return tag == rml::tag::wireup || tag == rml::tag::daemon_died; }

}  // namespace

namespace wire {

rml::Payload encode(const Envelope& e)
{
    rml::Writer w;
    w.u64(e.id).u32(e.tag).bytes(e.message);
    return w.ok() ? w.take() : rml::Payload{};
}

Status decode(const rml::Payload& in, Envelope& e)
{
    rml::Reader r(in, "broadcast");
    e.id = r.u64();
    e.tag = r.u32();
    e.message = r.bytes();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode_ack(uint64_t id)
{
    rml::Writer w;
    w.u64(id);
    return w.take();
}

Status decode_ack(const rml::Payload& in, uint64_t& id)
{
    rml::Reader r(in, "broadcast acknowledgement");
    id = r.u64();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

Status DirectModule::init()
{
    transport_->register_handler(rml::tag::xcast, [this](Rank o, rml::Payload&& p) { on_xcast(o, std::move(p)); });
    transport_->register_handler(rml::tag::xcast_ack, [this](Rank o, rml::Payload&& p) { on_ack(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather, [this](Rank o, rml::Payload&& p) { on_gather(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather_release,
                                 [this](Rank o, rml::Payload&& p) { on_release(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather_abort,
                                 [this](Rank o, rml::Payload&& p) { on_abort(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather_failed,
                                 [this](Rank o, rml::Payload&& p) { on_failed(o, std::move(p)); });
    transport_->register_handler(rml::tag::participant_ended,
                                 [this](Rank o, rml::Payload&& p) { on_ended(o, std::move(p)); });
    transport_->register_handler(rml::tag::participant_ended_all,
                                 [this](Rank o, rml::Payload&& p) { on_ended_all(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather_watch_request,
                                 [this](Rank o, rml::Payload&& p) { on_watch_request(o, std::move(p)); });
    transport_->register_handler(rml::tag::allgather_watch, [this](Rank o, rml::Payload&& p) { on_watch(o, std::move(p)); });
    transport_->add_tree_listener([this] { on_tree_changed(); });
    return {};
}

void DirectModule::finalize() noexcept
{
    ops_.clear();
    gathers_.clear();
    signature_seq_.clear();
    released_seq_.clear();
    ended_.clear();
    watches_.clear();
    left_.clear();
    watches_passed_on_.clear();
}

Status DirectModule::xcast(rml::Tag tag, const rml::Payload& message, XcastCompletion on_complete)
{
    if (!transport_->self() == 0) return {Errc::not_supported, "only the master broadcasts"};
    uint64_t id = next_op_++;
    XcastOp op;
    op.tag = tag;
    op.message = wire::encode(wire::Envelope{id, tag, message});
    if (op.message.empty()) return {Errc::internal, "cannot pack a broadcast"};
    // Refused here, not frame by frame on the way: a child the messenger refused to send to would
    // count as unreachable and the broadcast would "complete" without it (a job launched on part
    // of its daemons).
    if (op.message.size() > rml::Connection::kMaxPayload) {
        return {Errc::out_of_resource, fmt::format("a broadcast of {} bytes (tag {}) is over the {}-byte frame limit",
                                                   op.message.size(), tag, rml::Connection::kMaxPayload)};
    }
    op.on_complete = std::move(on_complete);
    first_sight(id);
    verbose()(5, "xcast {}: tag {} ({} bytes) to {} daemon(s)", id, tag, message.size(),
              transport_->tree().live_count());
    start_op(id, std::move(op));
    return {};
}

void DirectModule::on_xcast(Rank origin, rml::Payload&& payload)
{
    rml::Reader r(payload, "broadcast");
    uint64_t id = r.u64();
    rml::Tag tag = r.u32();
    if (!r.ok()) {
        output::warning("dropped a broadcast from daemon {}: {}", origin, r.error());
        return;
    }
    if (!first_sight(id)) {
        // A copy that came again through a repaired tree: the sender only needs the acknowledgement.
        if (Status st = transport_->send(origin, rml::tag::xcast_ack, wire::encode_ack(id)); !st) {
            verbose()(1, "xcast {}: cannot acknowledge a repeated copy to daemon {}: {}", id, origin, st.message());
        }
        return;
    }
    XcastOp op;
    op.tag = tag;
    op.message = std::move(payload);
    op.from = origin;
    start_op(id, std::move(op));
}

// Records `id` as seen; false when it had been. A daemon's first broadcast starts the mark: ids
// below it were sent before this daemon was part of the DVM.
bool DirectModule::first_sight(uint64_t id)
{
    if (seen_below_ == 0) seen_below_ = id;
    if (id < seen_below_ || !seen_above_.insert(id).second) return false;
    if (seen_above_.size() > kMaxSeenAbove) seen_below_ = *seen_above_.begin();
    while (!seen_above_.empty() && *seen_above_.begin() == seen_below_) {
        seen_above_.erase(seen_above_.begin());
        seen_below_++;
    }
    return true;
}

void DirectModule::start_op(uint64_t id, XcastOp op)
{
    auto [it, inserted] = ops_.emplace(id, std::move(op));
    XcastOp& o = it->second;
    if (process_first(o.tag)) {
        process(id, o);
        forward(id, o);
    } else {
        forward(id, o);
        process(id, o);
    }
    maybe_finish(id);
}

void DirectModule::forward(uint64_t, XcastOp& op)
{
    for (Rank child : transport_->tree().children()) {
        if (op.sent.count(child)) continue;
        op.sent.insert(child);
        if (Status st = transport_->send(child, rml::tag::xcast, op.message); st) {
            verbose()(10, "xcast: forwarded to daemon {}", child);
            op.pending.insert(child);
        } else {
            verbose()(1, "xcast: cannot reach daemon {}: {}", child, st.message());
        }
    }
}

void DirectModule::process(uint64_t id, XcastOp& op)
{
    wire::Envelope envelope;
    if (Status st = wire::decode(op.message, envelope); !st) {
        output::warning("dropped broadcast {}: {}", id, st.message());
        op.processed = true;
        return;
    }
    rml::Payload inner = std::move(envelope.message);
    // Processed only once the handler has returned: a wireup changes the tree in several steps
    // (size, departed ranks), and an acknowledgement sent from the first step's tree-change
    // callback would go to a parent the next step removes. (The op stays in ops_ meanwhile:
    // an op not processed is never finished, so the reference stays valid.)
    transport_->dispatch(0, op.tag, std::move(inner));
    op.processed = true;
}

void DirectModule::on_ack(Rank origin, rml::Payload&& payload)
{
    uint64_t id = 0;
    if (!wire::decode_ack(payload, id)) return;
    auto it = ops_.find(id);
    verbose()(10, "xcast {}: acknowledged by daemon {}{}", id, origin, it == ops_.end() ? " (op done)" : "");
    if (it == ops_.end()) return;
    it->second.pending.erase(origin);
    maybe_finish(id);
}

void DirectModule::maybe_finish(uint64_t id)
{
    auto it = ops_.find(id);
    if (it == ops_.end() || !it->second.processed || !it->second.pending.empty()) return;
    XcastOp op = std::move(it->second);
    ops_.erase(it);
    if (transport_->self() == 0) {
        verbose()(5, "xcast {}: every daemon has it", id);
        if (op.on_complete) op.on_complete({});
        return;
    }
    // To the daemon that sent it, which is the one waiting, straight (not along the tree): when
    // the master adopts a daemon whose parent it declared lost and sends it what was in flight,
    // that daemon's tree still names the lost parent until the broadcast of the loss arrives,
    // and an acknowledgement routed by it went to the lost daemon: the broadcast never completed
    // (found by bench/chaos). The tree's parent too when it is another live daemon (it may have
    // adopted this one since, and sent a copy); a second acknowledgement is ignored.
    Rank parent = transport_->tree().parent();
    rml::Payload payload = wire::encode_ack(id);
    if (op.from != kInvalidRank) {
        verbose()(10, "xcast {}: done here, acknowledging to daemon {}", id, op.from);
        if (Status st = transport_->send_direct(op.from, rml::tag::xcast_ack, payload); !st) {
            verbose()(1, "xcast {}: cannot acknowledge to daemon {}: {}", id, op.from, st.message());
        }
    }
    if (parent != kInvalidRank && parent != op.from && !transport_->tree().departed(parent)) {
        verbose()(10, "xcast {}: done here, acknowledging to daemon {} (its parent now)", id, parent);
        if (Status st = transport_->send(parent, rml::tag::xcast_ack, std::move(payload)); !st) {
            verbose()(1, "xcast {}: cannot acknowledge to daemon {} (its parent now): {}", id, parent, st.message());
        }
    }
}

// A daemon left: stop waiting for it, and send what is in flight to the children adopted from it.
void DirectModule::on_tree_changed()
{
    std::vector<uint64_t> ids;
    for (auto& [id, op] : ops_) {
        for (auto it = op.pending.begin(); it != op.pending.end();) {
            it = transport_->tree().departed(*it) ? op.pending.erase(it) : std::next(it);
        }
        forward(id, op);
        ids.push_back(id);
    }
    for (uint64_t id : ids) maybe_finish(id);
    gathers_after_tree_change();
}

}  // namespace prte::grpcomm::direct
