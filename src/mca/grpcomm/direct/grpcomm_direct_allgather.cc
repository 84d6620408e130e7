// The allgather up the tree (see grpcomm_direct.h).
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/strings.h"

namespace prte::grpcomm::direct {
namespace {

using runtime::kInvalidRank;
using runtime::Rank;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// Each process the entries name ("nspace:rank", "nspace:*" for a whole job), from the job maps
// every daemon holds, with its daemon (kInvalidRank when it has none).
void for_each_proc(const std::vector<std::string>& procs,
                   const std::function<void(const runtime::Job&, const runtime::Proc&, Rank)>& fn)
{
    auto& jobs = runtime::Runtime::instance().jobs();
    for (const auto& text : procs) {
        auto colon = text.rfind(':');
        if (colon == std::string::npos) continue;
        runtime::JobPtr job = jobs.find(text.substr(0, colon));
        if (!job) continue;
        std::string rank = text.substr(colon + 1);
        for (const auto& proc : job->procs) {
            if (rank != "*" && std::to_string(proc->rank) != rank) continue;
            fn(*job, *proc, proc->node ? proc->node->daemon : kInvalidRank);
        }
    }
}

std::string name_of(const runtime::Job& job, const runtime::Proc& proc)
{
    return fmt::format("{}:{}", job.nspace, proc.rank);
}

// The daemons hosting the given processes, leaving out the processes named in `except`.
std::set<Rank> daemons_of(const std::vector<std::string>& procs, const std::set<std::string>& except = {})
{
    std::set<Rank> out;
    for_each_proc(procs, [&](const runtime::Job& job, const runtime::Proc& proc, Rank daemon) {
        if (daemon == kInvalidRank || (!except.empty() && except.count(name_of(job, proc)))) return;
        out.insert(daemon);
    });
    return out;
}

// The given processes lost with their node: hosted by a daemon that has left the DVM, or on a node
// the master has detached from its departed daemon (plm's reset_node).
std::vector<runtime::ProcessName> procs_of_departed(const std::vector<std::string>& procs, const rml::RadixTree& tree)
{
    std::vector<runtime::ProcessName> out;
    for_each_proc(procs, [&](const runtime::Job& job, const runtime::Proc& proc, Rank daemon) {
        if (daemon != kInvalidRank && !tree.departed(daemon)) return;
        out.push_back({job.nspace, proc.rank});
    });
    return out;
}

// Whether a signature ("ns:rank,ns:*,...|id") names a process of the job.
bool mentions_job(const std::string& signature, const std::string& nspace)
{
    std::string procs = signature.substr(0, signature.rfind('|'));
    for (const auto& p : util::split(procs, ',')) {
        if (p.rfind(':') == nspace.size() && p.compare(0, nspace.size(), nspace) == 0) return true;
    }
    return false;
}

// What a contribution says of its collective, besides its processes.
constexpr uint8_t kAssignContextId = 1;
constexpr uint8_t kOptional = 2;

void write_procs(rml::Writer& w, const std::vector<runtime::ProcessName>& procs)
{
    w.u32(static_cast<uint32_t>(procs.size()));
    for (const auto& p : procs) write_proc(w, p);
}

std::vector<runtime::ProcessName> read_procs(rml::Reader& r)
{
    std::vector<runtime::ProcessName> out;
    uint32_t n = r.u32();
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
        runtime::ProcessName p;
        if (read_proc(r, p)) out.push_back(p);
    }
    return out;
}

}  // namespace

namespace wire {

rml::Payload encode(const Contribution& c)
{
    rml::Writer w;
    w.str(c.signature).u64(c.seq).strings(c.procs).u8(
        static_cast<uint8_t>((c.assign_context_id ? kAssignContextId : 0) | (c.optional ? kOptional : 0)));
    w.u32(static_cast<uint32_t>(c.shares.size()));
    for (const auto& [rank, data] : c.shares) w.u32(rank).bytes(data);
    return w.take();
}

Status decode(const rml::Payload& in, Contribution& c)
{
    rml::Reader r(in, "allgather contribution");
    c.signature = r.str();
    c.seq = r.u64();
    c.procs = r.strings();
    uint8_t flags = r.u8();
    c.assign_context_id = (flags & kAssignContextId) != 0;
    c.optional = (flags & kOptional) != 0;
    uint32_t count = r.u32();
    c.shares.clear();
    for (uint32_t i = 0; i < count && r.ok(); ++i) {
        Rank rank = r.u32();
        c.shares[rank] = r.bytes();
    }
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const Release& release)
{
    rml::Writer w;
    w.str(release.signature).u64(release.seq).u64(release.context_id).bytes(release.data);
    write_procs(w, release.left_out);
    return w.take();
}

Status decode(const rml::Payload& in, Release& release)
{
    rml::Reader r(in, "allgather result");
    release.signature = r.str();
    release.seq = r.u64();
    release.context_id = r.u64();
    release.data = r.bytes();
    release.left_out = read_procs(r);
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

std::string proc_text(const runtime::ProcessName& p)
{
    return p.rank == runtime::kWildcardRank ? fmt::format("{}:*", p.nspace) : fmt::format("{}:{}", p.nspace, p.rank);
}

void write_proc(rml::Writer& w, const runtime::ProcessName& proc) { w.str(proc.nspace).u32(proc.rank); }

bool read_proc(rml::Reader& r, runtime::ProcessName& proc)
{
    std::string nspace = r.str();
    runtime::Rank rank = r.u32();
    if (!r.ok()) return false;
    if (nspace.empty() || nspace.size() > runtime::kMaxNspaceLength) {
        r.fail(fmt::format("namespace of {} character(s)", nspace.size()));
        return false;
    }
    proc = {std::move(nspace), rank};
    return true;
}

std::set<Rank> hosting_daemons(const std::vector<std::string>& procs) { return daemons_of(procs); }

bool signature_mentions_job(const std::string& signature, const std::string& nspace)
{
    return mentions_job(signature, nspace);
}

std::string op_key(const std::string& signature, uint64_t seq) { return fmt::format("{}#{}", signature, seq); }

std::string signature_key(const Signature& signature, std::vector<std::string>& procs)
{
    procs.clear();
    for (const auto& p : signature.procs) procs.push_back(proc_text(p));
    std::sort(procs.begin(), procs.end());
    return util::join(procs, ",") + "|" + signature.id;
}

// nullptr when the collective has already been released here (a late copy of a share).
uint64_t DirectModule::released_through(const std::string& signature) const
{
    auto it = released_seq_.find(signature);
    return it == released_seq_.end() ? 0 : it->second;
}

DirectModule::GatherOp* DirectModule::gather_op(const std::string& signature, uint64_t seq,
                                               const std::vector<std::string>& procs, bool optional)
{
    if (seq <= released_through(signature)) return nullptr;
    std::string key = op_key(signature, seq);
    auto it = gathers_.find(key);
    if (it != gathers_.end()) {
        if (optional && !it->second.optional) {
            it->second.optional = true;
            refresh_participants(it->second);
        }
        return &it->second;
    }
    GatherOp& op = gathers_[key];
    op.signature = signature;
    op.seq = seq;
    op.procs = procs;
    op.optional = optional;
    op.participants = daemons_of(procs);
    refresh_participants(op);
    return &op;
}

// An optional collective waits only for the daemons hosting a participant it does not leave out:
// those that ended before they took part, and those lost with their node. What it leaves out only
// grows: a process once found ended or lost stays out, whatever the job maps say later.
void DirectModule::refresh_participants(GatherOp& op) const
{
    if (!op.optional) return;
    std::set<std::string> names;
    for (const runtime::ProcessName& p : op.left_out) names.insert(proc_text(p));
    size_t known = op.left_out.size();
    auto leave_out = [&](const runtime::ProcessName& p) {
        if (names.insert(proc_text(p)).second) op.left_out.push_back(p);
    };
    for (const Ended* e : ended_participants(op.procs, op.signature, op.seq)) leave_out(e->proc);
    for (const runtime::ProcessName& p : procs_of_departed(op.procs, transport_->tree())) leave_out(p);
    if (op.left_out.size() == known) return;
    std::set<Rank> before = op.participants;
    op.participants = daemons_of(op.procs, names);
    verbose()(5, "allgather {}: optional, {} left out; participants {} (were {})", op_key(op.signature, op.seq),
              util::join(std::vector<std::string>(names.begin(), names.end()), ","), op.participants.size(),
              before.size());
}

Status DirectModule::allgather(const Signature& signature, const rml::Payload& contribution,
                               AllgatherCallback on_complete)
{
    std::vector<std::string> procs;
    std::string sig = signature_key(signature, procs);
    uint64_t seq = ++signature_seq_[sig];
    if (const Ended* ended = signature.optional ? nullptr : ended_participant(procs, sig, seq)) {
        mark_released(sig, seq);
        gathers_.erase(op_key(sig, seq));  // shares from below, if any: their daemons fail it too
        Status why(Errc::peer_ended, fmt::format("process {} ended before it took part", proc_text(ended->proc)));
        verbose()(1, "allgather {}: failed: {}", op_key(sig, seq), why.message());
        // Through the callback rather than the return value, so the caller learns which process.
        runtime::ProcessName proc = ended->proc;
        if (on_complete) on_complete(why, {}, 0, &proc, {});
        return {};
    }
    GatherOp* op = gather_op(sig, seq, procs, signature.optional);
    Rank self = transport_->self();
    if (!op) return {Errc::internal, fmt::format("allgather {}: already released", op_key(sig, seq))};
    if (!op->participants.count(self)) {
        return {Errc::internal, fmt::format("allgather over {}: this daemon hosts none of them", sig)};
    }
    if (Rank gone = departed_participant(*op); gone != kInvalidRank) {
        return {Errc::unreachable,
                fmt::format("allgather over {}: daemon {}, which hosts some of them, has left", sig, gone)};
    }
    op->shares[self] = contribution;
    op->on_complete = std::move(on_complete);
    if (signature.watch_normal_ends) request_watch(sig, seq, procs);
    if (signature.time_limit.count() > 0 && !op->deadline) arm_deadline(*op, signature.time_limit);
    op->assign_context_id = op->assign_context_id || signature.assign_context_id;
    verbose()(5, "allgather {}: {} byte(s) from this daemon; participants {}{}", op_key(sig, seq), contribution.size(),
              op->participants.size(), op->optional ? ", optional" : "");
    maybe_send_up(*op);
    return {};
}

void DirectModule::on_gather(Rank origin, rml::Payload&& payload)
{
    wire::Contribution c;
    if (Status st = wire::decode(payload, c); !st) {
        output::warning("dropped an allgather contribution from daemon {}: {}", origin, st.message());
        return;
    }
    const std::string& sig = c.signature;
    const uint64_t seq = c.seq;
    std::map<Rank, rml::Payload>& shares = c.shares;
    GatherOp* op = gather_op(sig, seq, c.procs, c.optional);
    if (!op) {
        verbose()(10, "allgather {}: dropped a late copy from daemon {}", op_key(sig, seq), origin);
        return;
    }
    verbose()(5, "allgather {}: {} share(s) from daemon {}", op_key(sig, seq), shares.size(), origin);
    op->assign_context_id = op->assign_context_id || c.assign_context_id;
    // The same share may come twice after a repair (once through the old path, once resent).
    op->shares.merge(shares);
    maybe_send_up(*op);
}

// The first daemon hosting participants that has left the DVM, or kInvalidRank.
Rank DirectModule::departed_participant(const GatherOp& op) const
{
    for (Rank p : op.participants) {
        if (transport_->tree().departed(p)) return p;
    }
    return kInvalidRank;
}

// Every participating daemon in this daemon's subtree (itself included) has its share here.
bool DirectModule::has_subtree_shares(const GatherOp& op) const
{
    const rml::RadixTree& tree = transport_->tree();
    Rank self = transport_->self();
    return std::all_of(op.participants.begin(), op.participants.end(),
                       [&](Rank p) { return !tree.in_subtree(self, p) || op.shares.count(p); });
}

void DirectModule::maybe_send_up(GatherOp& op)
{
    if (op.released || !has_subtree_shares(op)) return;
    Rank self = transport_->self();
    std::string key = op_key(op.signature, op.seq);
    if (self == 0) {
        op.released = true;
        rml::Payload combined;
        for (const auto& [rank, data] : op.shares) combined.insert(combined.end(), data.begin(), data.end());
        uint64_t context_id = op.assign_context_id ? next_context_id_++ : 0;
        const std::vector<runtime::ProcessName>& left_out = op.left_out;  // kept current by refresh_participants
        verbose()(5, "allgather {}: complete, {} byte(s) from {} daemon(s){}{}", key, combined.size(), op.shares.size(),
                  context_id ? fmt::format(", context id {}", context_id) : std::string(),
                  left_out.empty() ? std::string() : fmt::format(", {} ended or lost process(es) left out", left_out.size()));
        if (Status st = xcast(rml::tag::allgather_release,
                              wire::encode(wire::Release{op.signature, op.seq, context_id, std::move(combined), left_out}), {});
            !st) {
            fail_gather(key, {Errc::internal, fmt::format("cannot broadcast the result: {}", st.message())});
        }
        return;
    }
    Rank parent = transport_->tree().parent();
    if (parent == kInvalidRank || parent == op.sent_to) return;
    wire::Contribution c{op.signature, op.seq, op.procs, op.assign_context_id, op.optional, op.shares};
    if (Status st = transport_->send(parent, rml::tag::allgather, wire::encode(c)); !st) {
        // The lost-peer handling repairs the tree and calls us again with the new parent.
        verbose()(1, "allgather {}: cannot reach the parent daemon {}: {}", key, parent, st.message());
        return;
    }
    op.sent_to = parent;
}

void DirectModule::on_release(Rank, rml::Payload&& payload)
{
    wire::Release release;
    if (Status st = wire::decode(payload, release); !st) {
        output::warning("dropped an allgather result: {}", st.message());
        return;
    }
    const std::string& sig = release.signature;
    const uint64_t seq = release.seq;
    mark_released(sig, seq);
    auto it = gathers_.find(op_key(sig, seq));
    if (it == gathers_.end()) return;  // this daemon held no share of it
    AllgatherCallback done = std::move(it->second.on_complete);
    gathers_.erase(it);
    if (done) done({}, release.data, release.context_id, nullptr, release.left_out);
}

// A share or result arriving later for this collective (or an earlier one of the signature) is a
// late copy: gather_op drops it.
void DirectModule::mark_released(const std::string& signature, uint64_t seq)
{
    uint64_t& released = released_seq_[signature];
    released = std::max(released, seq);
    drop_watches(signature, released);
}

void DirectModule::fail_gather(const std::string& key, const Status& why, const runtime::ProcessName* ended)
{
    auto it = gathers_.find(key);
    if (it == gathers_.end()) return;
    GatherOp op = std::move(it->second);
    gathers_.erase(it);
    mark_released(op.signature, op.seq);
    verbose()(1, "allgather {}: failed: {}", key, why.message());
    if (op.on_complete) op.on_complete(why, {}, 0, ended, {});
}

void DirectModule::cancel(const Signature& signature, const Status& why, bool started_here) noexcept
{
    std::vector<std::string> procs;
    std::string sig = signature_key(signature, procs);
    uint64_t started = signature_seq_.count(sig) ? signature_seq_[sig] : 0;
    uint64_t released = released_through(sig);
    if (started > released) {
        fail_gather(op_key(sig, started), why);
        return;
    }
    if (started_here) return;  // it completed before the cancellation reached it
    uint64_t seq = ++signature_seq_[sig];
    mark_released(sig, seq);
    gathers_.erase(op_key(sig, seq));  // shares from below, if any: their daemons cancel it too
    verbose()(1, "allgather {}: cancelled before this daemon took part: {}", op_key(sig, seq), why.message());
}

// Called after every tree repair: collectives waiting on a daemon that left fail (its processes
// are gone, so its share never comes), but optional ones go on without its processes; the others
// go up again wherever the parent changed.
void DirectModule::gathers_after_tree_change()
{
    std::vector<std::pair<std::string, Status>> failed;
    for (auto& [key, op] : gathers_) {
        if (!op.released) refresh_participants(op);
        if (Rank gone = departed_participant(op); gone != kInvalidRank) {
            failed.emplace_back(key, Status(Errc::unreachable,
                                            fmt::format("daemon {}, which hosts some of the processes, has left", gone)));
        }
    }
    for (const auto& [key, why] : failed) fail_gather(key, why);
    // By key: on the master, completing one releases it, which removes it from gathers_.
    std::vector<std::string> keys;
    for (const auto& entry : gathers_) keys.push_back(entry.first);
    for (const auto& key : keys) {
        auto it = gathers_.find(key);
        if (it != gathers_.end()) maybe_send_up(it->second);
    }
}

void DirectModule::job_released(const std::string& nspace) noexcept
{
    std::vector<std::string> keys;
    for (const auto& [key, op] : gathers_) {
        if (mentions_job(op.signature, nspace)) keys.push_back(key);
    }
    for (const auto& key : keys) fail_gather(key, {Errc::not_found, fmt::format("job {} has ended", nspace)});
    std::erase_if(signature_seq_, [&](const auto& entry) { return mentions_job(entry.first, nspace); });
    std::erase_if(released_seq_, [&](const auto& entry) { return mentions_job(entry.first, nspace); });
    std::erase_if(ended_, [&](const auto& entry) { return nspace == entry.second.proc.nspace; });
    forget_watches(nspace);
    // What a long-lived DVM keeps between jobs; the tests check it returns to nothing.
    verbose()(5,
              "job {} released; still held: {} collective counter(s), {} collective(s), {} broadcast id(s), "
              "{} ended process(es)",
              nspace, signature_seq_.size() + released_seq_.size(), gathers_.size() + watches_.size(), seen_above_.size(),
              ended_.size());
}

}  // namespace prte::grpcomm::direct
