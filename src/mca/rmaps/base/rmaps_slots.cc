// What every mapper shares (rmaps_base.h): how an app is named, its candidate nodes, and the slot
// rules - when a node may be oversubscribed, and how far.
#include <algorithm>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"

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

Status check_room(const runtime::Job& job, const MapContext& context, const runtime::Node& node, int64_t count)
{
    int64_t free = node.available_slots();
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
