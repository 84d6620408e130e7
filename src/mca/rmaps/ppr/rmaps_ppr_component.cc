// The rmaps/ppr component: the descriptor the runtime loads. The mapping itself is in
// rmaps_ppr_module.cc, which the unit tests compile directly.
#include <memory>

#include "mca/base/component.h"
#include "mca/rmaps/ppr/rmaps_ppr_module.h"
#include "mca/rmaps/rmaps.h"

namespace {

// PRRTE's value: above round_robin (10), so a ppr job reaches this mapper before the generic one.
constexpr int kPriority = 90;

void query(const prte::mca::QueryContext& /*context*/, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        return std::make_unique<prte::rmaps::ppr::PprModule>();
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "rmaps",
                   .name = "ppr",
                   .interface_version = prte::rmaps::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "maps N processes per node, package, NUMA domain, core or hwthread (--map-by ppr:N:<object>)",
                   .query = query)
