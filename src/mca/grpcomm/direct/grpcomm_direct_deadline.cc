// A caller's time limit on an allgather (Signature::time_limit; see grpcomm_direct.h).
//
// Each participating daemon times its own contribution. The first whose limit passes asks the
// master to end the collective; the master marks it released (shares still on their way are
// dropped as late copies) and broadcasts its failure, so every participant fails it at about the
// same moment and no daemon keeps waiting for a share that will never come. A collective that
// completes first simply drops its timer.
#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/loop_timer.h"
#include "runtime/runtime.h"

namespace prte::grpcomm::direct {
namespace {

using runtime::Rank;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// A failure travels as its Errc; a value this build does not know is reported as internal.
Errc errc_from_wire(uint32_t code)
{
    return code <= static_cast<uint32_t>(Errc::peer_ended) ? static_cast<Errc>(code) : Errc::internal;
}

}  // namespace

namespace wire {

rml::Payload encode(const Abort& a)
{
    rml::Writer w;
    w.str(a.signature).u64(a.seq).strings(a.procs).u32(static_cast<uint32_t>(a.code)).str(a.message);
    return w.take();
}

Status decode(const rml::Payload& in, Abort& a)
{
    rml::Reader r(in, "allgather abort");
    a.signature = r.str();
    a.seq = r.u64();
    a.procs = r.strings();
    a.code = errc_from_wire(r.u32());
    a.message = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const Failure& f)
{
    rml::Writer w;
    w.str(f.signature).u64(f.seq).u32(static_cast<uint32_t>(f.code)).str(f.message);
    return w.take();
}

Status decode(const rml::Payload& in, Failure& f)
{
    rml::Reader r(in, "allgather failure");
    f.signature = r.str();
    f.seq = r.u64();
    f.code = errc_from_wire(r.u32());
    f.message = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

struct DirectModule::Deadline {
    std::string key;
    std::chrono::milliseconds limit{0};
    runtime::LoopTimer timer;  // goes with the op
};

void DirectModule::arm_deadline(GatherOp& op, std::chrono::milliseconds limit)
{
    auto d = std::make_shared<Deadline>();
    d->key = op_key(op.signature, op.seq);
    d->limit = limit;
    // deadline_passed may destroy the op, and with it this Deadline and its timer: the key is the
    // callback's own copy.
    d->timer = runtime::LoopTimer(transport_->timer_base(), [this, key = d->key] { deadline_passed(key); });
    try {
        d->timer.arm(limit);
    } catch (const std::exception&) {
        output::warning("allgather {}: cannot set its time limit (out of memory); it waits without one", d->key);
        return;
    }
    op.deadline = std::move(d);
}

void DirectModule::deadline_passed(const std::string& key)
{
    auto it = gathers_.find(key);
    if (it == gathers_.end() || it->second.released) return;
    GatherOp& op = it->second;
    Status why(Errc::timed_out, fmt::format("not complete within the {} ms its caller allowed (PMIX_TIMEOUT)",
                                            op.deadline ? op.deadline->limit.count() : 0));
    verbose()(1, "allgather {}: {}; ending it on every participant", key, why.message());
    if (transport_->self() == 0) {
        fail_everywhere(op, why);
        return;
    }
    wire::Abort abort{op.signature, op.seq, op.procs, why.code(), why.message()};
    if (Status st = transport_->send(0, rml::tag::allgather_abort, wire::encode(abort)); !st) {
        // Without the master no result comes either: fail it here.
        fail_gather(key, why);
    }
}

// Asks the master as a passed time limit does, for the collective this daemon is at: the one
// under way here, or else the next (the master then fails it before anyone's share completes it;
// one already released there is left as it ended).
void DirectModule::end_everywhere(const Signature& signature, const Status& why) noexcept
{
    std::vector<std::string> procs;
    std::string sig = signature_key(signature, procs);
    uint64_t started = signature_seq_.count(sig) ? signature_seq_[sig] : 0;
    uint64_t seq = started > released_through(sig) ? started : started + 1;
    verbose()(1, "allgather {}: {}; ending it on every participant", op_key(sig, seq), why.message());
    if (transport_->self() == 0) {
        if (GatherOp* op = gather_op(sig, seq, procs, false); op && !op->released) fail_everywhere(*op, why);
        return;
    }
    wire::Abort abort{sig, seq, procs, why.code(), why.message()};
    if (Status st = transport_->send(0, rml::tag::allgather_abort, wire::encode(abort)); !st) {
        // Without the master nothing completes anyway: this daemon's part alone ends.
        cancel(signature, why, false);
    }
}

// Master: a participant's time limit passed.
void DirectModule::on_abort(Rank origin, rml::Payload&& payload)
{
    wire::Abort abort;
    if (Status st = wire::decode(payload, abort); !st) {
        output::warning("dropped an allgather abort from daemon {}: {}", origin, st.message());
        return;
    }
    if (transport_->self() != 0) return;
    const std::string& sig = abort.signature;
    const uint64_t seq = abort.seq;
    GatherOp* op = gather_op(sig, seq, abort.procs, false);  // failing it: who it waits for no longer matters
    if (!op || op->released) {
        verbose()(5, "allgather {}: abort from daemon {} after its release; ignored", op_key(sig, seq), origin);
        return;
    }
    verbose()(5, "allgather {}: daemon {} asks to end it: {}", op_key(sig, seq), origin, abort.message);
    fail_everywhere(*op, {abort.code, abort.message});
}

// Master.
void DirectModule::fail_everywhere(GatherOp& op, const Status& why)
{
    op.released = true;
    wire::Failure failure{op.signature, op.seq, why.code(), why.message()};
    if (Status st = xcast(rml::tag::allgather_failed, wire::encode(failure), {}); !st) {
        fail_gather(op_key(op.signature, op.seq), why);
    }
}

void DirectModule::on_failed(Rank, rml::Payload&& payload)
{
    wire::Failure failure;
    if (Status st = wire::decode(payload, failure); !st) {
        output::warning("dropped an allgather failure: {}", st.message());
        return;
    }
    const std::string& sig = failure.signature;
    const uint64_t seq = failure.seq;
    mark_released(sig, seq);
    // A daemon whose callers had not called yet counts the failed collective as started, as the
    // daemons that had do: the same construct started again (after a timeout, say) is then the next
    // one everywhere, also where a late caller calls only now.
    uint64_t& started = signature_seq_[sig];
    started = std::max(started, seq);
    fail_gather(op_key(sig, seq), {failure.code, failure.message});
}

}  // namespace prte::grpcomm::direct
