// The allgather up the tree (see grpcomm_direct.h).
#include <algorithm>

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

rml::Messenger& messenger() { return rml::Messenger::instance(); }
const output::VerboseStream& verbose() { return base::framework().verbose(); }

std::string proc_text(const pmix_proc_t& p)
{
    return p.rank == PMIX_RANK_WILDCARD ? fmt::format("{}:*", p.nspace) : fmt::format("{}:{}", p.nspace, p.rank);
}

// The daemons hosting the given processes, from the job maps every daemon holds.
std::set<Rank> daemons_of(const std::vector<std::string>& procs)
{
    std::set<Rank> out;
    auto& jobs = runtime::Runtime::instance().jobs();
    for (const auto& text : procs) {
        auto colon = text.rfind(':');
        if (colon == std::string::npos) continue;
        runtime::JobPtr job = jobs.find(text.substr(0, colon));
        if (!job) continue;
        std::string rank = text.substr(colon + 1);
        for (const auto& proc : job->procs) {
            if (rank != "*" && std::to_string(proc->rank) != rank) continue;
            if (proc->node && proc->node->daemon != kInvalidRank) out.insert(proc->node->daemon);
        }
    }
    return out;
}

}  // namespace

DirectModule::GatherOp& DirectModule::gather_op(const std::string& key, const std::vector<std::string>& procs)
{
    auto it = gathers_.find(key);
    if (it != gathers_.end()) return it->second;
    GatherOp& op = gathers_[key];
    op.key = key;
    op.procs = procs;
    op.participants = daemons_of(procs);
    return op;
}

Status DirectModule::allgather(const Signature& signature, const rml::Payload& contribution,
                               AllgatherCallback on_complete)
{
    std::vector<std::string> procs;
    for (const auto& p : signature.procs) procs.push_back(proc_text(p));
    std::sort(procs.begin(), procs.end());
    std::string sig = util::join(procs, ",") + "|" + signature.id;
    uint64_t seq = ++signature_seq_[sig];
    std::string key = fmt::format("{}#{}", sig, seq);
    GatherOp& op = gather_op(key, procs);
    if (!op.participants.count(messenger().self())) {
        return {Errc::internal, fmt::format("allgather over {}: this daemon hosts none of them", sig)};
    }
    op.contributed = true;
    op.data.insert(op.data.end(), contribution.begin(), contribution.end());
    op.on_complete = std::move(on_complete);
    verbose()(5, "allgather {}: {} byte(s) from this daemon; participants {}", key, contribution.size(),
              op.participants.size());
    maybe_send_up(op);
    return {};
}

void DirectModule::on_gather(Rank origin, rml::Payload&& payload)
{
    rml::Reader r(payload, "allgather contribution");
    std::string key = r.str();
    std::vector<std::string> procs = r.strings();
    rml::Payload data = r.bytes();
    if (!r.ok()) {
        output::warning("dropped an allgather contribution from daemon {}: {}", origin, r.error());
        return;
    }
    GatherOp& op = gather_op(key, procs);
    if (!op.heard.insert(origin).second) return;  // a duplicate after a repair
    op.data.insert(op.data.end(), data.begin(), data.end());
    maybe_send_up(op);
}

void DirectModule::maybe_send_up(GatherOp& op)
{
    if (op.sent_up) return;
    Rank self = messenger().self();
    const rml::RadixTree& tree = messenger().tree();
    if (op.participants.count(self) && !op.contributed) return;
    for (Rank child : tree.children()) {
        bool hosts_some = std::any_of(op.participants.begin(), op.participants.end(),
                                      [&](Rank p) { return tree.in_subtree(child, p); });
        if (hosts_some && !op.heard.count(child)) return;
    }
    op.sent_up = true;
    if (self == 0) {
        verbose()(5, "allgather {}: complete, {} byte(s)", op.key, op.data.size());
        rml::Writer w;
        w.str(op.key).bytes(op.data);
        if (Status st = xcast(rml::tag::allgather_release, w.take(), {}); !st) {
            output::warning("allgather {}: cannot broadcast the result: {}", op.key, st.message());
        }
        return;
    }
    rml::Writer w;
    w.str(op.key).strings(op.procs).bytes(op.data);
    Rank parent = tree.parent();
    std::string key = op.key;
    bool participant = op.participants.count(self) > 0;
    if (Status st = messenger().send(parent, rml::tag::allgather, w.take()); !st) {
        output::warning("allgather {}: cannot reach the parent daemon {}: {}", key, parent, st.message());
    }
    if (!participant) gathers_.erase(key);
}

void DirectModule::on_release(Rank, rml::Payload&& payload)
{
    rml::Reader r(payload, "allgather result");
    std::string key = r.str();
    rml::Payload data = r.bytes();
    if (!r.ok()) {
        output::warning("dropped an allgather result: {}", r.error());
        return;
    }
    auto it = gathers_.find(key);
    if (it == gathers_.end()) return;  // no participant here
    AllgatherCallback done = std::move(it->second.on_complete);
    gathers_.erase(it);
    if (done) done({}, data);
}

}  // namespace prte::grpcomm::direct
