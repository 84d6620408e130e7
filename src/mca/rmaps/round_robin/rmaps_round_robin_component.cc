// The rmaps/round_robin component: the descriptor the runtime loads. The mapping itself is in
// rmaps_round_robin_module.cc, which the unit tests compile directly.
#include <memory>

#include "mca/base/component.h"
#include "mca/rmaps/rmaps.h"
#include "mca/rmaps/round_robin/rmaps_round_robin_module.h"

namespace {

// The same priority in every role: by slot and by node need nothing but slot counts. It is low
// (PRRTE's value) so that mappers for more specific policies, offered the job first, can take it.
constexpr int kPriority = 10;

void query(const prte::mca::QueryContext& /*context*/, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        return std::make_unique<prte::rmaps::round_robin::RoundRobinModule>();
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "rmaps",
                   .name = "round_robin",
                   .interface_version = prte::rmaps::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "maps processes by slot (the default) or by node, round robin over the nodes",
                   .query = query)
