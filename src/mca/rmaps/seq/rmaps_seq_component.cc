// The rmaps/seq component: the descriptor the runtime loads. The mapping itself is in
// rmaps_seq_module.cc, which the unit tests compile directly.
#include <memory>

#include "mca/base/component.h"
#include "mca/rmaps/rmaps.h"
#include "mca/rmaps/seq/rmaps_seq_module.h"

namespace {

// PRRTE's value: above round_robin (10), so a seq job reaches this mapper before the generic one.
constexpr int kPriority = 60;

void query(const prte::mca::QueryContext& /*context*/, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        return std::make_unique<prte::rmaps::seq::SeqModule>();
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "rmaps",
                   .name = "seq",
                   .interface_version = prte::rmaps::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "maps rank i to the i-th host of the app's hostfile or --host list (--map-by seq)",
                   .query = query)
