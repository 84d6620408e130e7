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
    try {
        result.module = std::make_unique<prte::rmaps::ppr::PprModule>();
        result.priority = kPriority;
    } catch (...) {
        result.priority = -1;
        result.reason = "out of memory creating the module";
    }
}

}  // namespace

extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept
{
    static const prte::mca::ComponentDescriptor descriptor{
        .framework = "rmaps",
        .name = "ppr",
        .interface_version = prte::rmaps::kInterfaceVersion,
        .version = "1.0.0",
        .description = "maps N processes per node, package, NUMA domain, core or hwthread (--map-by ppr:N:<object>)",
        .register_params = nullptr,
        .open = nullptr,
        .query = query,
        .close = nullptr};
    return &descriptor;
}
