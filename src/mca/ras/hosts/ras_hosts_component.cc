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
    try {
        default_hostfile_param = &registry.register_string(
            {"ras", "hosts", "default_hostfile"}, "",
            "Hostfile to read when the DVM is started with neither --hostfile nor --host "
            "(empty: none, and the DVM is the local node alone)");
    } catch (const std::bad_alloc&) {
        default_hostfile_param = nullptr;
    }
}

void query(const prte::mca::QueryContext&, prte::mca::QueryResult& result) noexcept
{
    try {
        std::string default_hostfile = default_hostfile_param ? default_hostfile_param->as_string() : "";
        result.module = std::make_unique<prte::ras::hosts::HostsModule>(std::move(default_hostfile));
        result.priority = kPriority;
    } catch (const std::bad_alloc&) {
        result.priority = -1;
        result.reason = "out of memory creating the module";
    }
}

}  // namespace

extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept
{
    static const prte::mca::ComponentDescriptor descriptor{
        .framework = "ras",
        .name = prte::ras::hosts::kComponentName,
        .interface_version = prte::ras::kInterfaceVersion,
        .version = "1.0.0",
        .description = "nodes from --hostfile, --host, a default hostfile, or the local node",
        .register_params = register_params,
        .open = nullptr,
        .query = query,
        .close = nullptr};
    return &descriptor;
}
