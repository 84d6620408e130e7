// What every mapper shares (rmaps_base.h): how an app is named, its candidate nodes, and the slot
// rules - when a node may be oversubscribed, and how far.
#include <algorithm>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"

namespace prte::rmaps::base {

std::string describe_app(const runtime::AppContext& app)
{
    return fmt::format("app {} ({})", app.index, app.executable);
}

Status app_candidates(const runtime::Job& job, const runtime::AppContext& app, const MapContext& context,
                      const std::vector<runtime::Node*>*& nodes)
{
    if (app.index < 0 || static_cast<size_t>(app.index) >= context.app_nodes.size()) {
        return {Errc::internal, fmt::format("no candidate node list for {} of job {}", describe_app(app), job.nspace)};
    }
    nodes = &context.app_nodes[static_cast<size_t>(app.index)];
    return {};
}

bool oversubscribe_allowed(const runtime::Job& job, const MapContext&)
{
    return job.mapping.oversubscribe.value_or(false);
}

int64_t free_slots(const runtime::Job& job, const runtime::Node& node)
{
    const runtime::HwTopology* topo = node.hw.get();
    int64_t slots = node.slots;
    if (!node.slots_given && job.mapping.hwtcpus && topo) slots = static_cast<int64_t>(topo->cpus(true).size());
    int64_t free = std::max<int64_t>(0, slots - node.slots_inuse);
    if (job.mapping.pes_per_proc > 0 && topo) {
        int64_t idle = 0;  // CPUs no running process is bound to
        for (hwloc_obj_t cpu : topo->cpus(job.mapping.hwtcpus)) idle += load_max(node.pu_load, cpu->cpuset) == 0 ? 1 : 0;
        free = std::min(free, idle / job.mapping.pes_per_proc);
    }
    return free;
}

std::optional<int> app_slot_cap(const MapContext& context, const runtime::AppContext& app, const runtime::Node& node)
{
    if (app.index < 0 || static_cast<size_t>(app.index) >= context.app_slot_caps.size()) return std::nullopt;
    const auto& caps = context.app_slot_caps[static_cast<size_t>(app.index)];
    auto it = caps.find(&node);
    if (it == caps.end()) return std::nullopt;
    return it->second;
}

int64_t app_free_slots(const runtime::Job& job, const MapContext& context, const runtime::AppContext& app,
                       const runtime::Node& node)
{
    int64_t free = free_slots(job, node);
    std::optional<int> cap = app_slot_cap(context, app, node);
    if (!cap) return free;
    int64_t used = 0;  // by this app already (another mapping pass, a remap)
    for (const auto& proc : job.procs) used += proc->node == &node && proc->app_index == app.index ? 1 : 0;
    return std::min(free, std::max<int64_t>(0, *cap - used));
}

Status check_room(const runtime::Job& job, const MapContext& context, const runtime::AppContext& app,
                  const runtime::Node& node, int64_t count)
{
    std::optional<int> cap = app_slot_cap(context, app, node);
    if (!cap) return check_room(job, context, node, count);
    int64_t free = app_free_slots(job, context, app, node);
    if (count <= free || oversubscribe_allowed(job, context)) return check_room(job, context, node, count);
    std::string fix = job.mapping.oversubscribe.has_value()
                          ? std::string("oversubscription is disabled for this job (:NOOVERSUBSCRIBE)")
                          : std::string("append :OVERSUBSCRIBE to --map-by to oversubscribe");
    return {Errc::out_of_resource, fmt::format("not enough slots on node {}: --host {}:{} allows {} of {} there, {} "
                                               "asked; {}",
                                               node.name, node.name, *cap, free, describe_app(app), count, fix)};
}

Status check_room(const runtime::Job& job, const MapContext& context, const runtime::Node& node, int64_t count)
{
    int64_t free = free_slots(job, node);
    if (node.slots_max > 0) {
        int64_t room = std::max(0, node.slots_max - node.slots_inuse);
        if (count > room) {
            return {Errc::out_of_resource,
                    fmt::format("node {} can take at most {} more process(es) even oversubscribing (max_slots={}), "
                                "{} asked; raise max_slots or request fewer processes",
                                node.name, room, node.slots_max, count)};
        }
    }
    if (count <= free || oversubscribe_allowed(job, context)) return {};
    std::string fix = job.mapping.oversubscribe.has_value()
                          ? std::string("oversubscription is disabled for this job (:NOOVERSUBSCRIBE)")
                          : std::string("append :OVERSUBSCRIBE to --map-by to oversubscribe");
    return {Errc::out_of_resource,
            fmt::format("node {} has {} free slot(s), {} asked; {}", node.name, free, count, fix)};
}

}  // namespace prte::rmaps::base
