// Step 1 of placement inside a node (rmaps_placement.h): each process's place.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"

namespace prte::rmaps::base {
namespace {

using runtime::HwLevel;
using runtime::HwTopology;
using runtime::MapBy;
using runtime::Node;
using runtime::Proc;

// `objects` least loaded first, in their logical order among equals.
std::vector<hwloc_obj_t> by_load(const Node& node, const std::vector<hwloc_obj_t>& objects)
{
    std::vector<std::pair<unsigned, hwloc_obj_t>> loads;
    loads.reserve(objects.size());
    for (hwloc_obj_t o : objects) loads.emplace_back(load_sum(node.pu_load, o->cpuset), o);
    std::stable_sort(loads.begin(), loads.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<hwloc_obj_t> out;
    out.reserve(objects.size());
    for (const auto& [load, o] : loads) out.push_back(o);
    return out;
}

const char* cpu_word(const runtime::MappingPolicy& m) { return m.hwtcpus ? "hwthread" : "core"; }

// What choose_pe_cpus knows of one node while the job's processes are placed on it.
struct CpuUse {
    std::vector<unsigned> load;  // processes of running jobs on each CPU (fixed while placing)
    std::vector<unsigned> used;  // this job's processes given each CPU so far
    std::unordered_map<hwloc_obj_t, std::vector<size_t>> inside;  // CPUs inside each mapped object
    size_t cursor = 0;           // where overloading goes on, round the CPUs
};

// PE=n: n CPUs for each process, inside its mapped object when it has room, else anywhere on the
// node; CPUs no process uses first. More than the node has is refused unless :overload-allowed.
Status choose_pe_cpus(const runtime::Job& job, const Node& node, const HwTopology& topo, hwloc_obj_t within,
                      CpuUse& use, Place& place)
{
    const auto& cpus = topo.cpus(job.mapping.hwtcpus);
    const size_t n = static_cast<size_t>(job.mapping.pes_per_proc);
    std::vector<size_t> chosen;
    auto pick_free = [&](auto&& indices) {
        chosen.clear();
        for (size_t i : indices) {
            if (use.used[i] + use.load[i] > 0) continue;
            chosen.push_back(i);
            if (chosen.size() == n) return true;
        }
        return false;
    };
    bool found = false;
    if (within) {
        auto [it, added] = use.inside.try_emplace(within);
        if (added) {
            for (size_t i = 0; i < cpus.size(); ++i) {
                if (hwloc_bitmap_isincluded(cpus[i]->cpuset, within->cpuset)) it->second.push_back(i);
            }
        }
        found = pick_free(it->second);
    }
    if (!found) {
        std::vector<size_t> all(cpus.size());
        std::iota(all.begin(), all.end(), 0);
        found = pick_free(all);
    }
    if (!found) {
        if (!job.mapping.bind_overload_allowed) {
            return {Errc::out_of_resource,
                    fmt::format("PE={} needs {} free {}(s) for each process, and node {} has no more ({} {}(s) in "
                                "all); run fewer processes there, lower PE, or add --bind-to {}:overload-allowed",
                                n, n, cpu_word(job.mapping), node.name, cpus.size(), cpu_word(job.mapping),
                                cpu_word(job.mapping))};
        }
        // Overloaded on purpose: the next n CPUs round the node, so that the load stays even.
        chosen.clear();
        for (size_t k = 0; k < std::min(n, cpus.size()); ++k) chosen.push_back((use.cursor + k) % cpus.size());
        use.cursor = (use.cursor + n) % cpus.size();
        std::sort(chosen.begin(), chosen.end());
    }
    for (size_t i : chosen) {
        ++use.used[i];
        place.cpus.push_back(cpus[i]);
    }
    place.object = within ? within : place.cpus.front();
    return {};
}

// pe-list=a,b: the listed CPUs (logical ids among cores, or hwthreads with :HWTCPUS); with
// :ORDERED, one each in turn.
Status choose_pe_list(const runtime::Job& job, const Node& node, const HwTopology& topo, size_t local_index,
                      Place& place)
{
    const auto& cpus = topo.cpus(job.mapping.hwtcpus);
    for (int id : job.mapping.pe_list) {
        if (static_cast<size_t>(id) >= cpus.size()) {
            return {Errc::bad_param, fmt::format("pe-list names {} {}, but node {} has {} {}(s) (logical ids 0-{})",
                                                 cpu_word(job.mapping), id, node.name, cpus.size(),
                                                 cpu_word(job.mapping), cpus.size() - 1)};
        }
    }
    const auto& list = job.mapping.pe_list;
    if (job.mapping.pe_list_ordered) {
        place.cpus.push_back(cpus[static_cast<size_t>(list[local_index % list.size()])]);
    } else {
        for (int id : list) place.cpus.push_back(cpus[static_cast<size_t>(id)]);
    }
    place.object = place.cpus.front();
    return {};
}

}  // namespace

HwLevel mapping_level(const runtime::MappingPolicy& mapping)
{
    MapBy by = mapping.by == MapBy::ppr ? mapping.ppr_object : mapping.by;
    switch (by) {
    case MapBy::hwthread: return HwLevel::hwthread;
    case MapBy::core: return mapping.hwtcpus ? HwLevel::hwthread : HwLevel::core;
    case MapBy::l1cache: return HwLevel::l1cache;
    case MapBy::l2cache: return HwLevel::l2cache;
    case MapBy::l3cache: return HwLevel::l3cache;
    case MapBy::numa: return HwLevel::numa;
    case MapBy::package: return HwLevel::package;
    // PRRTE's default mapping is by core (by hwthread with :HWTCPUS).
    case MapBy::unset: return mapping.hwtcpus ? HwLevel::hwthread : HwLevel::core;
    default: return HwLevel::machine;
    }
}

ProcsByNode group_by_node(const std::vector<Proc*>& procs)
{
    ProcsByNode out;
    std::unordered_map<const Node*, size_t> index;
    for (Proc* proc : procs) {
        auto [it, added] = index.emplace(proc->node, out.size());
        if (added) out.push_back({proc->node, {}});
        out[it->second].second.push_back(proc);
    }
    return out;
}

Status assign_places(runtime::Job& job, Places& places)
{
    const auto& m = job.mapping;
    const HwLevel level = mapping_level(m);
    if (m.by == MapBy::rankfile) return {};  // the rankfile gave each process its CPUs
    std::vector<Proc*> all;
    all.reserve(job.procs.size());
    for (const auto& proc : job.procs) all.push_back(proc.get());
    for (auto& [node, procs] : group_by_node(all)) {
        const HwTopology* topo = node->hw.get();
        if (!topo) {
            // Unknown hardware: only a placement that names no object can go on without it.
            const bool names_object = (m.by != MapBy::unset && level != HwLevel::machine) || m.pes_per_proc > 0 ||
                                      m.by == MapBy::pe_list;
            if (!names_object) continue;
            return {Errc::not_supported, fmt::format("the topology of node {} is unknown, so processes cannot be "
                                                     "placed by {} there", node->name, runtime::to_string(level))};
        }
        const auto& cpus = topo->cpus(m.hwtcpus);
        CpuUse use;
        use.used.assign(cpus.size(), 0);
        if (m.pes_per_proc > 0) {
            for (hwloc_obj_t cpu : cpus) use.load.push_back(load_sum(node->pu_load, cpu->cpuset));
        }
        // The objects processes go round: the mapping level's, or CPUs for slot, node and seq.
        std::vector<hwloc_obj_t> objects = level == HwLevel::machine ? cpus : topo->objects(level);
        if (objects.empty()) {
            return {Errc::not_supported,
                    fmt::format("cannot map by {} on node {}: hwloc finds no {} there; map by another level (core, "
                                "numa, package, ...)",
                                runtime::to_string(level), node->name, runtime::to_string(level))};
        }
        const bool fill = m.by == MapBy::ppr && level != HwLevel::machine;
        std::vector<hwloc_obj_t> order = fill ? objects : by_load(*node, objects);
        for (size_t i = 0; i < procs.size(); ++i) {
            Place& place = places[procs[i]];
            hwloc_obj_t mapped = fill ? order[std::min(i / static_cast<size_t>(m.ppr_count), order.size() - 1)]
                                      : order[i % order.size()];
            if (m.by == MapBy::pe_list) {
                if (Status st = choose_pe_list(job, *node, *topo, i, place); !st) return st;
            } else if (m.pes_per_proc > 0) {
                // PE= on slot/node/seq maps takes CPUs anywhere on the node, in order.
                hwloc_obj_t within = level == HwLevel::machine || level == HwLevel::core || level == HwLevel::hwthread
                                         ? nullptr
                                         : mapped;
                if (Status st = choose_pe_cpus(job, *node, *topo, within, use, place); !st) return st;
            } else {
                place.object = mapped;
            }
        }
    }
    return {};
}

}  // namespace prte::rmaps::base
