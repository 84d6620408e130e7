// Step 3 of placement inside a node (rmaps_placement.h): the CPUs each process is bound to.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"

namespace prte::rmaps::base {
namespace {

using runtime::BindTo;
using runtime::HwLevel;
using runtime::HwTopology;
using runtime::MapBy;
using runtime::Node;
using runtime::Proc;

// An hwloc bitmap that frees itself.
class Bitmap {
  public:
    Bitmap() : set_(hwloc_bitmap_alloc()) {}
    ~Bitmap() { hwloc_bitmap_free(set_); }
    Bitmap(const Bitmap&) = delete;
    Bitmap& operator=(const Bitmap&) = delete;
    hwloc_bitmap_t get() const { return set_; }

  private:
    hwloc_bitmap_t set_;
};

std::optional<HwLevel> level_of(BindTo b)
{
    switch (b) {
    case BindTo::hwthread: return HwLevel::hwthread;
    case BindTo::core: return HwLevel::core;
    case BindTo::l1cache: return HwLevel::l1cache;
    case BindTo::l2cache: return HwLevel::l2cache;
    case BindTo::l3cache: return HwLevel::l3cache;
    case BindTo::numa: return HwLevel::numa;
    case BindTo::package: return HwLevel::package;
    default: return std::nullopt;
    }
}

}  // namespace

unsigned load_sum(const std::vector<uint16_t>& pu_load, hwloc_const_bitmap_t set)
{
    unsigned sum = 0;
    int pu = -1;
    while ((pu = hwloc_bitmap_next(set, pu)) != -1) {
        if (static_cast<size_t>(pu) < pu_load.size()) sum += pu_load[static_cast<size_t>(pu)];
    }
    return sum;
}

unsigned load_max(const std::vector<uint16_t>& pu_load, hwloc_const_bitmap_t set)
{
    unsigned most = 0;
    int pu = -1;
    while ((pu = hwloc_bitmap_next(set, pu)) != -1) {
        if (static_cast<size_t>(pu) < pu_load.size()) most = std::max<unsigned>(most, pu_load[static_cast<size_t>(pu)]);
    }
    return most;
}

// PRRTE's default binding (its set_default_binding): PE= and pe-list bind to their CPUs; a
// mapping by an object binds to that object; slot, node and seq bind to a CPU for at most two
// processes, to a NUMA domain above.
HwLevel default_binding_level(const runtime::Job& job)
{
    const auto& m = job.mapping;
    const HwLevel cpu = m.hwtcpus ? HwLevel::hwthread : HwLevel::core;
    if (m.pes_per_proc > 0 || m.by == MapBy::pe_list) return cpu;
    HwLevel mapped = mapping_level(m);
    if (mapped != HwLevel::machine) return mapped;
    return job.procs.size() <= 2 ? cpu : HwLevel::numa;
}

namespace {

// The processes of all jobs on the node, against its CPUs: PRRTE binds nothing by default on a
// node that is oversubscribed.
bool oversubscribed(const runtime::Job& job, const Node& node, const HwTopology& topo, size_t ours)
{
    size_t cpus = topo.cpus(job.mapping.hwtcpus).size();
    size_t each = static_cast<size_t>(std::max(1, job.mapping.pes_per_proc));
    size_t others = static_cast<size_t>(std::max(0, node.num_procs - static_cast<int>(ours)));
    // Slots that came from the hardware count hwthreads when the job does (:HWTCPUS).
    int slots = !node.slots_given && job.mapping.hwtcpus ? static_cast<int>(cpus) : node.slots;
    return node.slots_inuse > slots || (ours * each + others) > cpus;
}

// An object's id in a binding report: hwloc's logical index, or with --display ...:physical the
// OS's ("P#4"), where the OS numbers that kind of object (it does not number caches).
std::string object_id(hwloc_obj_t o, bool physical)
{
    if (physical && o->os_index != HWLOC_UNKNOWN_INDEX) return fmt::format("P#{}", o->os_index);
    return std::to_string(o->logical_index);
}

// "cores 0-1", "core 3": the ids of the CPUs a PE= or pe-list process has (logical, or the OS's
// with `physical`: "cores P#0,2").
std::string describe_cpus(const std::vector<hwloc_obj_t>& cpus, const char* word, bool physical)
{
    Bitmap ids;
    bool os = physical;
    for (hwloc_obj_t c : cpus) os = os && c->os_index != HWLOC_UNKNOWN_INDEX;
    for (hwloc_obj_t c : cpus) hwloc_bitmap_set(ids.get(), os ? c->os_index : c->logical_index);
    return fmt::format("{}{} {}{}", word, cpus.size() > 1 ? "s" : "", os ? "P#" : "", runtime::cpu_list(ids.get()));
}

void add_load(Node& node, hwloc_const_bitmap_t set, int delta)
{
    int last = hwloc_bitmap_last(set);
    if (last < 0) return;
    if (node.pu_load.size() <= static_cast<size_t>(last)) node.pu_load.resize(static_cast<size_t>(last) + 1, 0);
    int pu = -1;
    while ((pu = hwloc_bitmap_next(set, pu)) != -1) {
        auto& load = node.pu_load[static_cast<size_t>(pu)];
        load = static_cast<uint16_t>(std::max(0, load + delta));
    }
}

struct NodeBinder {
    const runtime::Job& job;
    Node& node;
    const HwTopology& topo;
    std::map<hwloc_obj_t, int> bound;  // this job's processes per binding object
    std::vector<uint16_t> before;      // the node's pu_load from the jobs bound before this one
    // Per binding object, its CPU list and CPU count: every process bound there shares them, and a
    // 100,000-rank job would otherwise print and count them again for each.
    std::map<hwloc_obj_t, std::pair<std::string, int>> described;

    Status bind(Proc& proc, const Place* place, bool by_default, HwLevel level);
};

Status NodeBinder::bind(Proc& proc, const Place* place, bool by_default, HwLevel level)
{
    const auto& m = job.mapping;
    const char* level_name = runtime::to_string(level);
    if (place && !place->cpus.empty()) {  // PE= or pe-list: exactly these CPUs
        Bitmap set;
        for (hwloc_obj_t c : place->cpus) hwloc_bitmap_or(set.get(), set.get(), c->cpuset);
        proc.cpuset = runtime::cpu_list(set.get());
        proc.binding = fmt::format("{} (cpus {})", describe_cpus(place->cpus, m.hwtcpus ? "hwthread" : "core",
                                                                job.reports.physical),
                                   proc.cpuset);
        add_load(node, set.get(), 1);
        proc.cpus_counted = true;
        return {};
    }
    const auto& objects = topo.objects(level);
    if (objects.empty()) {
        if (by_default || m.bind_if_supported) return {};
        return {Errc::not_supported,
                fmt::format("cannot bind to {} on node {}: hwloc finds no {} there; add --bind-to {}:if-supported to "
                            "run unbound where a node lacks it, or bind to another level",
                            level_name, node.name, level_name, level_name)};
    }
    // The objects of the level inside the process's place, else the one that holds it; the place
    // itself when it is of the level (mapped and bound by core, the default).
    std::vector<hwloc_obj_t> candidates;
    if (place && place->object && place->object->type == objects.front()->type &&
        place->object->depth == objects.front()->depth) {
        candidates.push_back(place->object);
    } else if (place && place->object) {
        for (hwloc_obj_t o : objects) {
            if (hwloc_bitmap_isincluded(o->cpuset, place->object->cpuset)) candidates.push_back(o);
        }
        if (candidates.empty()) {
            for (hwloc_obj_t o : objects) {
                if (hwloc_bitmap_isincluded(place->object->cpuset, o->cpuset)) candidates.push_back(o);
            }
        }
    }
    if (candidates.empty()) candidates = objects;
    // Round the candidates: the one this job has bound fewest to, then the least loaded.
    hwloc_obj_t chosen = *std::min_element(candidates.begin(), candidates.end(), [&](hwloc_obj_t a, hwloc_obj_t b) {
        if (bound[a] != bound[b]) return bound[a] < bound[b];
        return load_max(before, a->cpuset) < load_max(before, b->cpuset);
    });
    const int on_object = ++bound[chosen];
    const HwLevel cpu_level = m.hwtcpus || level == HwLevel::hwthread ? HwLevel::hwthread : HwLevel::core;
    auto [text, added] = described.try_emplace(chosen);
    if (added) {
        int cpus = 0;
        for (hwloc_obj_t c : topo.objects(cpu_level)) cpus += hwloc_bitmap_isincluded(c->cpuset, chosen->cpuset) ? 1 : 0;
        text->second = {runtime::cpu_list(chosen->cpuset), cpus == 0 ? hwloc_bitmap_weight(chosen->cpuset) : cpus};
    }
    if (!by_default && !m.bind_overload_allowed) {
        const int cpus = text->second.second;
        // Processes other jobs bound to these very CPUs count too (a CPU-level object).
        int others = level == cpu_level ? static_cast<int>(load_max(before, chosen->cpuset)) : 0;
        if (on_object + others > cpus) {
            return {Errc::out_of_resource,
                    fmt::format("cannot bind {} processes to {} {} on node {}: it has {} {}(s); add --bind-to "
                                "{}:overload-allowed to bind them anyway, or --bind-to none",
                                on_object + others, level_name, chosen->logical_index, node.name, cpus,
                                runtime::to_string(cpu_level), level_name)};
        }
    }
    proc.cpuset = text->second.first;
    proc.binding = fmt::format("{} {} (cpus {})", level_name, object_id(chosen, job.reports.physical), proc.cpuset);
    add_load(node, chosen->cpuset, 1);
    proc.cpus_counted = true;
    return {};
}

// Why a node sharing its machine with `sharers` binds nothing by default: what --report-bindings
// and --display map say of its processes (Proc::binding with an empty cpuset).
std::string shared_machine_note(const Node& node, const std::vector<const Node*>& sharers)
{
    constexpr size_t kNamed = 3;  // a test-bed of 100 nodes need not list them all on every rank
    std::string names;
    for (size_t i = 0; i < sharers.size() && i < kNamed; ++i) names += (i ? ", " : "") + sharers[i]->name;
    if (sharers.size() > kNamed) names += fmt::format(" and {} more", sharers.size() - kNamed);
    return fmt::format("node {} shares its machine's CPUs with node{} {} (same host name and boot id), so nothing is "
                       "bound there by default (--bind-to binds anyway)",
                       node.name, sharers.size() > 1 ? "s" : "", names);
}

// The usable nodes of each known machine, read once per job (a pass over the pool, not one per node).
std::unordered_map<std::string, std::vector<const Node*>> nodes_by_machine(const runtime::NodePool& pool)
{
    std::unordered_map<std::string, std::vector<const Node*>> out;
    for (const Node* node : pool.nodes()) {
        if (!node->machine.empty() && node_is_usable(*node)) out[node->machine].push_back(node);
    }
    return out;
}

}  // namespace

Status bind_procs(runtime::Job& job, const Places& places, const runtime::NodePool& pool)
{
    const auto& m = job.mapping;
    if (m.by == MapBy::rankfile) {  // the rankfile set the CPUs: only count them
        for (auto& proc : job.procs) {
            if (proc->cpuset.empty()) continue;
            Bitmap set;
            hwloc_bitmap_list_sscanf(set.get(), proc->cpuset.c_str());
            add_load(*proc->node, set.get(), 1);
            proc->cpus_counted = true;
        }
        return {};
    }
    if (m.bind_to == BindTo::none) return {};
    const bool by_default = !m.bind_given();
    const HwLevel level = by_default ? default_binding_level(job) : *level_of(m.bind_to);
    std::unordered_map<Node*, size_t> ours;
    for (const auto& proc : job.procs) ours[proc->node]++;
    std::unordered_map<Node*, std::unique_ptr<NodeBinder>> binders;
    std::unordered_map<const Node*, std::string> shared_notes;  // per node: why it is not bound, or empty
    std::optional<std::unordered_map<std::string, std::vector<const Node*>>> machines;
    for (auto& proc : job.procs) {
        Node& node = *proc->node;
        const HwTopology* topo = node.hw.get();
        if (!topo) {
            if (by_default || m.bind_if_supported) continue;
            return {Errc::not_supported, fmt::format("cannot bind on node {}: its topology is unknown", node.name)};
        }
        const bool given_cpus = m.pes_per_proc > 0 || m.by == MapBy::pe_list;
        if (by_default && !given_cpus && oversubscribed(job, node, *topo, ours[&node])) continue;
        if (by_default && !given_cpus) {
            auto [note, added] = shared_notes.try_emplace(&node);
            if (added && !node.machine.empty()) {
                if (!machines) machines = nodes_by_machine(pool);
                std::vector<const Node*> sharers;
                for (const Node* other : (*machines)[node.machine]) {
                    if (other != &node) sharers.push_back(other);
                }
                if (!sharers.empty()) note->second = shared_machine_note(node, sharers);
            }
            if (!note->second.empty()) {
                proc->binding = note->second;
                continue;
            }
        }
        auto& binder = binders[&node];
        if (!binder) binder.reset(new NodeBinder{job, node, *topo, {}, node.pu_load});
        auto it = places.find(proc.get());
        if (Status st = binder->bind(*proc, it == places.end() ? nullptr : &it->second, by_default, level); !st) {
            return st;
        }
    }
    return {};
}

void release_binding(runtime::Proc& proc)
{
    if (!proc.cpus_counted || !proc.node) return;
    proc.cpus_counted = false;
    Bitmap set;
    if (hwloc_bitmap_list_sscanf(set.get(), proc.cpuset.c_str()) == 0) add_load(*proc.node, set.get(), -1);
}

}  // namespace prte::rmaps::base
