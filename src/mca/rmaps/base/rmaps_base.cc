#include "mca/rmaps/base/rmaps_base.h"

#include <map>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_app_nodes.h"

namespace prte::rmaps {

Module::~Module() = default;

namespace base {
namespace {

// Local rank: position among this job's procs on the node. Node rank: position among all
// procs on the node, so it continues after the procs other jobs already placed there.
void assign_ranks(runtime::Job& job)
{
    std::map<runtime::Node*, int> ours;  // this job's procs per node
    for (const auto& proc : job.procs) ours[proc->node]++;
    std::map<runtime::Node*, int> local;
    for (auto& proc : job.procs) {
        proc->local_rank = local[proc->node]++;
        proc->node_rank = proc->node->num_procs - ours[proc->node] + proc->local_rank;
    }
}

}  // namespace

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("rmaps", kInterfaceVersion, mca::SelectMode::multi,
                                                "Resource mapping: places processes on nodes");
    return instance;
}

std::vector<Module*> modules() { return mca::modules_of<Module>(framework()); }

bool node_is_usable(const runtime::Node& node)
{
    return node.state == runtime::NodeState::up || node.state == runtime::NodeState::unknown ||
           node.state == runtime::NodeState::added;
}

runtime::Proc& claim_slot(runtime::Job& job, runtime::Node& node, int app_index)
{
    auto proc = std::make_unique<runtime::Proc>();
    proc->rank = static_cast<runtime::Rank>(job.procs.size());
    proc->app_index = app_index;
    proc->node = &node;
    node.slots_inuse++;
    node.num_procs++;
    job.procs.push_back(std::move(proc));
    return *job.procs.back();
}

void unmap_job(runtime::Job& job)
{
    for (auto& proc : job.procs) {
        if (!proc->node) continue;
        proc->node->slots_inuse--;
        proc->node->num_procs--;
    }
    job.procs.clear();
    job.num_launched = 0;
}

Status map_job(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter)
{
    if (!job.procs.empty()) unmap_job(job);
    MapContext context;
    for (const auto& app : job.apps) {
        AppNodes nodes;
        if (Status st = resolve_app_nodes(app, pool, filter, nodes); !st) return st;
        for (runtime::Node* n : nodes.usable) context.slots_given = context.slots_given || n->slots_given;
        context.app_nodes.push_back(std::move(nodes.usable));
        context.app_named_nodes.push_back(std::move(nodes.named));
    }
    for (const auto& selected : framework().selected()) {
        auto* module = static_cast<Module*>(selected.module.get());
        Status st = module->map(job, context);
        if (st.code() == Errc::take_next_option) {
            framework().verbose()(10, "map: {} passed on job {}", selected.descriptor->name, job.nspace);
            continue;
        }
        if (!st) {
            unmap_job(job);
            return st;
        }
        assign_ranks(job);
        framework().verbose()(5, "map: job {} mapped by {}: {} proc(s)", job.nspace, selected.descriptor->name,
                              job.procs.size());
        return {};
    }
    if (job.mapping.by == runtime::MapBy::unset) {
        return {Errc::not_supported, fmt::format("no mapper is available for job {} (check the rmaps parameter: "
                                                 "prte_info --selected)", job.nspace)};
    }
    return {Errc::not_supported,
            fmt::format("no mapper can handle --map-by {} for job {}", to_string(job.mapping.by), job.nspace)};
}

}  // namespace base
}  // namespace prte::rmaps
