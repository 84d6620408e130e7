// errmgr/dvm's descriptor.
#include "mca/base/component.h"
#include "mca/errmgr/dvm/errmgr_dvm.h"

namespace {

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "only the DVM master decides the outcome of failures";
        return;
    }
    result.priority = 50;
    result.module = std::make_unique<prte::errmgr::dvm::DvmErrmgrModule>();
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "errmgr",
                   .name = "dvm",
                   .interface_version = prte::errmgr::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "the DVM master's failure handling: the first failed process ends its job",
                   .query = query)
