// state/dvm's descriptor: the master's state tables.
#include "mca/base/component.h"
#include "mca/state/dvm/state_dvm.h"

namespace {

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "only the DVM master runs the DVM state machine";
        return;
    }
    result.priority = 50;
    result.module = std::make_unique<prte::state::dvm::DvmStateModule>();
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "state",
                   .name = "dvm",
                   .interface_version = prte::state::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "the DVM master's job and process state machines",
                   .query = query)
