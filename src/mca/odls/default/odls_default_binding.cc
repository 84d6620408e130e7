#include "mca/odls/default/odls_default_binding.h"

#include "runtime/topology.h"

#include <hwloc/glibc-sched.h>

#include <fmt/format.h>

namespace prte::odls::default_component {
namespace {

std::optional<hwloc_obj_type_t> object_type(runtime::BindTo policy)
{
    switch (policy) {
    case runtime::BindTo::hwthread: return HWLOC_OBJ_PU;
    case runtime::BindTo::core: return HWLOC_OBJ_CORE;
    case runtime::BindTo::numa: return HWLOC_OBJ_NUMANODE;
    case runtime::BindTo::package: return HWLOC_OBJ_PACKAGE;
    case runtime::BindTo::none:
    case runtime::BindTo::unset: return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

Topology::~Topology() = default;

// The process's shared topology (runtime/topology.h): the one the daemon reported and the PMIx
// server uses, so binding agrees with both.
Status Topology::load()
{
    if (topology_) return {};
    topology_ = runtime::shared_topology();
    if (!topology_) return {Errc::internal, "hwloc cannot read this node's topology"};
    return {};
}

Status Topology::binding_for(runtime::BindTo policy, int local_rank, std::optional<Binding>& binding)
{
    binding.reset();
    auto type = object_type(policy);
    if (!type) return {};
    if (Status st = load(); !st) return st;
    int count = hwloc_get_nbobjs_by_type(topology_, *type);
    if (count <= 0) {
        return {Errc::not_supported,
                fmt::format("cannot bind to {}: hwloc finds no such object on this node; use --bind-to none or "
                            "another object type",
                            runtime::to_string(policy))};
    }
    unsigned index = static_cast<unsigned>(local_rank) % static_cast<unsigned>(count);
    hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, *type, index);
    if (!obj || !obj->cpuset || hwloc_bitmap_iszero(obj->cpuset)) {
        return {Errc::not_supported,
                fmt::format("cannot bind to {} {}: it has no usable CPUs", runtime::to_string(policy), index)};
    }
    Binding b{};
    CPU_ZERO(&b.cpus);
    if (hwloc_cpuset_to_glibc_sched_affinity(topology_, obj->cpuset, &b.cpus, sizeof(b.cpus)) != 0) {
        return {Errc::internal, fmt::format("cannot convert the CPU set of {} {}", runtime::to_string(policy), index)};
    }
    char* list = nullptr;
    hwloc_bitmap_list_asprintf(&list, obj->cpuset);
    b.description = fmt::format("{} {} (cpus {})", runtime::to_string(policy), index, list ? list : "?");
    free(list);
    binding = std::move(b);
    return {};
}

}  // namespace prte::odls::default_component
