// The ras/ssh component's descriptor: its pool parameter and its query. The work is in
// ras_ssh_module.cc.
#include <memory>
#include <new>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/ras.h"
#include "mca/ras/ssh/ras_ssh_module.h"

namespace {

// Above ras/hosts (10): a request naming pool hosts is the pool's to lend.
constexpr int kPriority = 20;

const prte::mca::Param* pool_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        pool_param = &registry.register_string({"ras", "ssh", "pool"}, "",
                                               "Hostfile of spare ssh-reachable hosts the DVM may grow onto "
                                               "(palloc -N, PMIX_ALLOC_NUM_NODES); empty: none");
    });
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master && context.role != prte::mca::ProcessRole::info) {
        result.reason = "only the DVM master lends hosts";
        return;
    }
    prte::mca::offer_module(result, kPriority, [&] {
        return std::make_unique<prte::ras::ssh::SshPoolModule>(pool_param ? pool_param->as_string() : "");
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "ras",
                   .name = prte::ras::ssh::kComponentName,
                   .interface_version = prte::ras::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "a pool of spare ssh-reachable hosts (ras_ssh_pool) lent as the DVM grows",
                   .register_params = register_params,
                   .query = query)
