// The rmaps/rank_file component: the descriptor the runtime loads. The mapping itself is in
// rmaps_rank_file_module.cc, which the unit tests compile directly.
#include <memory>

#include "mca/base/component.h"
#include "mca/rmaps/rank_file/rmaps_rank_file_module.h"
#include "mca/rmaps/rmaps.h"

namespace {

// Above round_robin (10), like seq: a rankfile job reaches this mapper before the generic one.
constexpr int kPriority = 50;

void query(const prte::mca::QueryContext& /*context*/, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        return std::make_unique<prte::rmaps::rank_file::RankFileModule>();
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "rmaps",
                   .name = "rank_file",
                   .interface_version = prte::rmaps::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "places each rank on the node and CPUs a rankfile names (--map-by rankfile:FILE=)",
                   .query = query)
