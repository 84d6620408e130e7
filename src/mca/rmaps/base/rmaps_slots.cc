// The slot rules every mapper follows (rmaps_base.h): when a node may be oversubscribed, and how far.
#include <algorithm>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"

namespace prte::rmaps::base {

std::string describe_app(const runtime::AppContext& app)
{
    return fmt::format("app {} ({})", app.index, app.executable);
}

bool oversubscribe_allowed(const runtime::Job& job, const MapContext& context)
{
    if (job.mapping.oversubscribe.has_value()) return *job.mapping.oversubscribe;
    return !context.slots_given;
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
