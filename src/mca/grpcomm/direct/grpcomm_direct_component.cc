// grpcomm/direct's descriptor: chosen on every daemon (the master too) of a DVM that has a
// messenger; the work is in grpcomm_direct_xcast.cc and grpcomm_direct_allgather.cc.
#include "mca/base/component.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"

namespace {

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master && context.role != prte::mca::ProcessRole::daemon) {
        result.reason = "only daemons take part in collectives";
        return;
    }
    result.priority = 10;
    result.module = std::make_unique<prte::grpcomm::direct::DirectModule>(prte::grpcomm::direct::messenger_transport());
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "grpcomm",
                   .name = "direct",
                   .interface_version = prte::grpcomm::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "reliable broadcast and allgather over the radix routing tree",
                   .query = query)
