// The ras/hosts component's descriptor: its one parameter and its query. The work is in
// ras_hosts_module.cc.
#include <memory>
#include <new>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/hosts/ras_hosts_module.h"
#include "mca/ras/ras.h"

namespace {

// Low, so that a scheduler's RAS component, when it has an allocation to offer, is asked first.
constexpr int kPriority = 10;

// Owned by the registry, which outlives every component.
const prte::mca::Param* default_hostfile_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        default_hostfile_param = &registry.register_string(
            {"ras", "hosts", "default_hostfile"}, "",
            "Hostfile to read when the DVM is started with neither --hostfile nor --host "
            "(empty: none, and the DVM is the local node alone)");
    });
}

void query(const prte::mca::QueryContext&, prte::mca::QueryResult& result) noexcept
{
    prte::mca::offer_module(result, kPriority, [&] {
        std::string default_hostfile = default_hostfile_param ? default_hostfile_param->as_string() : "";
        return std::make_unique<prte::ras::hosts::HostsModule>(std::move(default_hostfile));
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "ras",
                   .name = prte::ras::hosts::kComponentName,
                   .interface_version = prte::ras::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "nodes from --hostfile, --host, a default hostfile, or the local node",
                   .register_params = register_params,
                   .query = query)
