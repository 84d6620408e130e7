#include "mca/rmaps/base/rmaps_report.h"

#include "mca/rmaps/base/rmaps_placement.h"

#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"

namespace prte::rmaps::base {
namespace {

std::string upper(std::string text)
{
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

std::string mapping_policy(const runtime::MappingPolicy& mapping)
{
    std::string text = mapping.by == runtime::MapBy::unset ? "default" : runtime::to_string(mapping.by);
    if (mapping.by == runtime::MapBy::ppr) {
        text = fmt::format("ppr:{}:{}", mapping.ppr_count, runtime::to_string(mapping.ppr_object));
    }
    if (mapping.oversubscribe) text += *mapping.oversubscribe ? ":OVERSUBSCRIBE" : ":NOOVERSUBSCRIBE";
    return upper(text);
}

}  // namespace

std::string allocation_report(const runtime::NodePool& pool)
{
    std::string out = "======================   ALLOCATED NODES   ======================\n";
    for (const runtime::Node* node : pool.nodes()) {
        if (!node_is_usable(*node)) continue;
        out += fmt::format("    {}: slots={} max_slots={} slots_inuse={} state={}\n", node->name, node->slots,
                           node->slots_max, node->slots_inuse, upper(runtime::to_string(node->state)));
    }
    out += "=================================================================\n";
    return out;
}

std::string map_report(const runtime::Job& job, const runtime::NodePool& pool)
{
    // Nodes in the pool's order, each with the job's ranks on it in rank order.
    std::map<const runtime::Node*, std::vector<const runtime::Proc*>> placed;
    for (const auto& proc : job.procs) placed[proc->node].push_back(proc.get());
    int total_slots = 0;
    for (const runtime::Node* node : pool.nodes()) {
        if (node_is_usable(*node)) total_slots += node->slots;
    }
    // Unset binds nothing (odls/default binds only when asked).
    // Without --bind-to, the level PRRTE's default picks for this job (rmaps_binding.cc).
    std::string binding = job.mapping.bind_to == runtime::BindTo::unset
                              ? std::string(runtime::to_string(default_binding_level(job))) + " (default)"
                              : runtime::to_string(job.mapping.bind_to);
    std::string out = "========================   JOB MAP   ========================\n";
    out += fmt::format("Data for JOB {} Total slots allocated {}\n", job.nspace, total_slots);
    out += fmt::format("    Mapping policy: {}  Ranking policy: {}  Binding policy: {}\n", mapping_policy(job.mapping),
                       upper(job.mapping.rank_by == runtime::RankBy::unset ? "as mapped"
                                                                            : runtime::to_string(job.mapping.rank_by)),
                       upper(binding));
    for (const runtime::Node* node : pool.nodes()) {
        auto it = placed.find(node);
        if (it == placed.end()) continue;
        out += fmt::format("\nData for node: {}\tNum slots: {}\tMax slots: {}\tNum procs: {}\n", node->name, node->slots,
                           node->slots_max, it->second.size());
        for (const runtime::Proc* proc : it->second) {
            out += fmt::format("        Process jobid: {} App: {} Process rank: {} Local rank: {}", job.nspace,
                               proc->app_index, proc->rank, proc->local_rank);
            // Where placement bound it (rmaps/base fills it at map time); nothing while it is unbound.
            if (!proc->binding.empty()) out += fmt::format(" Bound: {}", proc->binding);
            out += "\n";
        }
    }
    out += "\n=============================================================\n";
    return out;
}

}  // namespace prte::rmaps::base
