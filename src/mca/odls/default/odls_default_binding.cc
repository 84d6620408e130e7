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
    case runtime::BindTo::l1cache: return HWLOC_OBJ_L1CACHE;
    case runtime::BindTo::l2cache: return HWLOC_OBJ_L2CACHE;
    case runtime::BindTo::l3cache: return HWLOC_OBJ_L3CACHE;
    case runtime::BindTo::numa: return HWLOC_OBJ_NUMANODE;
    case runtime::BindTo::package: return HWLOC_OBJ_PACKAGE;
    case runtime::BindTo::none:
    case runtime::BindTo::unset: return std::nullopt;
    }
    return std::nullopt;
}

// PRRTE's default: the object the job is mapped by, when it is one a process can be bound to.
runtime::BindTo default_binding(const runtime::MappingPolicy& mapping)
{
    runtime::MapBy by = mapping.by == runtime::MapBy::ppr ? mapping.ppr_object : mapping.by;
    switch (by) {
    case runtime::MapBy::hwthread: return runtime::BindTo::hwthread;
    case runtime::MapBy::numa: return runtime::BindTo::numa;
    case runtime::MapBy::package: return runtime::BindTo::package;
    default: return runtime::BindTo::core;
    }
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

Status Topology::binding_for(const runtime::MappingPolicy& mapping, int local_rank, int local_size,
                             const std::string& node, std::optional<Binding>& binding)
{
    binding.reset();
    const bool by_default = mapping.bind_to == runtime::BindTo::unset;
    const runtime::BindTo policy = by_default ? default_binding(mapping) : mapping.bind_to;
    auto type = object_type(policy);
    if (!type) return {};
    if (Status st = load(); !st) return st;
    const char* level = runtime::to_string(policy);
    // What a process counts as its CPUs: cores, or hwthreads when bound to hwthreads.
    const hwloc_obj_type_t cpu_type = policy == runtime::BindTo::hwthread ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    const char* cpu_name = cpu_type == HWLOC_OBJ_PU ? "hwthread" : "core";
    if (by_default && local_size > hwloc_get_nbobjs_by_type(topology_, cpu_type)) return {};  // oversubscribed

    int count = hwloc_get_nbobjs_by_type(topology_, *type);
    if (count <= 0) {
        if (by_default || mapping.bind_if_supported) return {};
        return {Errc::not_supported,
                fmt::format("cannot bind to {} on node {}: hwloc finds no {} there; add --bind-to {}:if-supported to "
                            "run unbound where a node lacks it, or bind to another level",
                            level, node, level, level)};
    }
    unsigned index = static_cast<unsigned>(local_rank) % static_cast<unsigned>(count);
    hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, *type, index);
    if (!obj || !obj->cpuset || hwloc_bitmap_iszero(obj->cpuset)) {
        return {Errc::not_supported, fmt::format("cannot bind to {} {} on node {}: it has no usable CPUs", level, index, node)};
    }
    if (!by_default && !mapping.bind_overload_allowed) {
        // The processes on this object (round robin over the objects) against its CPUs.
        int on_object = local_size / count + (static_cast<int>(index) < local_size % count ? 1 : 0);
        int cpus = hwloc_get_nbobjs_inside_cpuset_by_type(topology_, obj->cpuset, cpu_type);
        if (cpus > 0 && on_object > cpus) {
            return {Errc::bad_param,
                    fmt::format("cannot bind {} processes to {} {} on node {}: it has {} {}(s); add --bind-to "
                                "{}:overload-allowed to bind them anyway, or --bind-to none",
                                on_object, level, index, node, cpus, cpu_name, level)};
        }
    }
    Binding b{};
    CPU_ZERO(&b.cpus);
    if (hwloc_cpuset_to_glibc_sched_affinity(topology_, obj->cpuset, &b.cpus, sizeof(b.cpus)) != 0) {
        return {Errc::internal, fmt::format("cannot convert the CPU set of {} {}", level, index)};
    }
    char* list = nullptr;
    hwloc_bitmap_list_asprintf(&list, obj->cpuset);
    b.description = fmt::format("{} {} (cpus {}){}", level, index, list ? list : "?", by_default ? " by default" : "");
    free(list);
    binding = std::move(b);
    return {};
}

}  // namespace prte::odls::default_component
