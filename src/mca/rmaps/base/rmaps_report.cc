#include "mca/rmaps/base/rmaps_report.h"

#include "mca/rmaps/base/rmaps_placement.h"

#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "runtime/hw_topology.h"
#include "util/xml.h"

namespace prte::rmaps::base {
namespace {

std::string upper(std::string text)
{
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

std::string mapping_policy(const runtime::MappingPolicy& mapping)
{
    std::string text = mapping.by == runtime::MapBy::unset ? "default" : runtime::to_string(mapping.by);
    if (mapping.by == runtime::MapBy::ppr) {
        text = fmt::format("ppr:{}:{}", mapping.ppr_count, runtime::to_string(mapping.ppr_object));
    }
    if (mapping.oversubscribe) text += *mapping.oversubscribe ? ":OVERSUBSCRIBE" : ":NOOVERSUBSCRIBE";
    return upper(text);
}

// "32 MiB", "512 KiB", "20.2 GiB": sizes as lstopo shows them, in the largest unit that is not
// below 1.
std::string size_text(uint64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    if (value == static_cast<double>(static_cast<uint64_t>(value))) return fmt::format("{} {}", static_cast<uint64_t>(value), units[unit]);
    return fmt::format("{:.1f} {}", value, units[unit]);
}

// One object and, indented below it, its memory children (NUMA nodes) then its normal ones;
// I/O and Misc objects are left out, as placement never uses them.
void print_object(hwloc_obj_t obj, int depth, std::string& out)
{
    char type[64];
    hwloc_obj_type_snprintf(type, sizeof type, obj, 0);
    std::string line = fmt::format("{:{}}{} L#{}", "", 2 * depth, type, obj->logical_index);
    if (obj->type == HWLOC_OBJ_PU) {
        line += fmt::format(" (P#{})", obj->os_index);
    } else if (obj->type == HWLOC_OBJ_NUMANODE) {
        line += fmt::format(" (P#{} {})", obj->os_index, size_text(obj->attr->numanode.local_memory));
    } else if (hwloc_obj_type_is_cache(obj->type) && obj->attr->cache.size > 0) {
        line += fmt::format(" ({})", size_text(obj->attr->cache.size));
    }
    if (obj->type != HWLOC_OBJ_PU && obj->cpuset && !hwloc_bitmap_iszero(obj->cpuset)) {
        line += " cpus " + runtime::cpu_list(obj->cpuset);
    }
    out += line + "\n";
    for (hwloc_obj_t child = obj->memory_first_child; child; child = child->next_sibling) {
        print_object(child, depth + 1, out);
    }
    for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling) {
        print_object(child, depth + 1, out);
    }
}

void node_topology(const runtime::Node& node, std::string& out)
{
    out += "=================================================================\n";
    out += fmt::format("TOPOLOGY FOR NODE {}", node.name);
    if (!node.hw) {
        out += ": not known yet (its daemon has not called home)\n";
        return;
    }
    const runtime::NodeTopology n = node.hw->counts();
    out += fmt::format(": {} package(s), {} NUMA domain(s), {} core(s), {} hwthread(s){}\n", n.packages,
                       n.numa_domains, n.cores, n.hwthreads, node.simulated ? " (simulated)" : "");
    print_object(hwloc_get_root_obj(node.hw->get()), 0, out);
}

constexpr const char* kCpusRule = "======================================================================\n";

// One package's available CPUs (hwloc's allowed set, a cgroup's limit applied), as cores or, with
// HWTCPUS, hwthreads: their logical indexes, or the OS's with :physical. What --cpu-set takes.
std::string available_in(const runtime::HwTopology& hw, hwloc_const_cpuset_t package, bool hwthreads, bool physical)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(hw.get());
    hwloc_bitmap_t indexes = hwloc_bitmap_alloc();
    for (hwloc_obj_t cpu : hw.cpus(hwthreads)) {
        if (!cpu->cpuset || !hwloc_bitmap_intersects(cpu->cpuset, package) ||
            !hwloc_bitmap_intersects(cpu->cpuset, allowed)) {
            continue;
        }
        hwloc_bitmap_set(indexes, physical ? cpu->os_index : cpu->logical_index);
    }
    std::string text = hwloc_bitmap_iszero(indexes) ? std::string("NONE") : runtime::cpu_list(indexes);
    hwloc_bitmap_free(indexes);
    return text;
}

void node_cpus(const runtime::Job& job, const std::string& name, const runtime::Node* node, std::string& out)
{
    out += fmt::format("\n======================   AVAILABLE PROCESSORS [node: {}]   ======================\n\n", name);
    if (!node) {
        out += "no such node in the DVM\n";
    } else if (!node->hw) {
        out += "not known yet (its daemon has not called home)\n";
    } else {
        const runtime::HwTopology& hw = *node->hw;
        const auto& packages = hw.objects(runtime::HwLevel::package);
        if (packages.empty()) {
            out += fmt::format("PKG[0]: {}\n", available_in(hw, hwloc_get_root_obj(hw.get())->cpuset,
                                                             job.mapping.hwtcpus, job.reports.physical));
        }
        for (size_t i = 0; i < packages.size(); ++i) {
            out += fmt::format("PKG[{}]: {}\n", i, available_in(hw, packages[i]->cpuset, job.mapping.hwtcpus,
                                                                 job.reports.physical));
        }
    }
    out += std::string("\n") + kCpusRule;
}

// --output xml: the reports as elements in the shapes PRRTE and Open MPI print (<allocation>,
// <map>, <host name=...>, <process rank=...>, <processors node=...>), each element closed so
// that the tool's whole document parses; values escaped as the tool escapes output.
std::string attr(const std::string& text) { return util::xml_escape(text, true); }

void xml_object(hwloc_obj_t obj, int depth, std::string& out)
{
    char type[64];
    hwloc_obj_type_snprintf(type, sizeof type, obj, 0);
    std::string open = fmt::format("{:{}}<object type=\"{}\" logical_index=\"{}\" os_index=\"{}\"", "", 4 * depth,
                                   attr(type), obj->logical_index, obj->os_index == HWLOC_UNKNOWN_INDEX ? -1 : static_cast<long>(obj->os_index));
    if (obj->cpuset && !hwloc_bitmap_iszero(obj->cpuset)) open += fmt::format(" cpus=\"{}\"", runtime::cpu_list(obj->cpuset));
    if (!obj->memory_first_child && !obj->first_child) {
        out += open + "/>\n";
        return;
    }
    out += open + ">\n";
    for (hwloc_obj_t child = obj->memory_first_child; child; child = child->next_sibling) xml_object(child, depth + 1, out);
    for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling) xml_object(child, depth + 1, out);
    out += fmt::format("{:{}}</object>\n", "", 4 * depth);
}

// A report on a node whose hardware is not known: one empty element saying why. False when it is.
bool xml_node_unknown(const char* element, const std::string& name, const runtime::Node* node, std::string& out)
{
    if (node && node->hw) return false;
    out += fmt::format("<{} node=\"{}\" error=\"{}\"/>\n", element, attr(name),
                       node ? "not known yet (its daemon has not called home)" : "no such node in the DVM");
    return true;
}

void xml_node_topology(const std::string& name, const runtime::Node* node, std::string& out)
{
    if (xml_node_unknown("topology", name, node, out)) return;
    out += fmt::format("<topology node=\"{}\">\n", attr(name));
    xml_object(hwloc_get_root_obj(node->hw->get()), 1, out);
    out += "</topology>\n";
}

void xml_node_cpus(const runtime::Job& job, const std::string& name, const runtime::Node* node, std::string& out)
{
    if (xml_node_unknown("processors", name, node, out)) return;
    out += fmt::format("<processors node=\"{}\">\n", attr(name));
    const runtime::HwTopology& hw = *node->hw;
    const auto& packages = hw.objects(runtime::HwLevel::package);
    if (packages.empty()) {
        out += fmt::format("    <package id=\"0\" cpus=\"{}\"/>\n",
                           available_in(hw, hwloc_get_root_obj(hw.get())->cpuset, job.mapping.hwtcpus, job.reports.physical));
    }
    for (size_t i = 0; i < packages.size(); ++i) {
        out += fmt::format("    <package id=\"{}\" cpus=\"{}\"/>\n", i,
                           available_in(hw, packages[i]->cpuset, job.mapping.hwtcpus, job.reports.physical));
    }
    out += "</processors>\n";
}

// PRRTE's <map>: per node used, <host> with a <process> per rank placed there.
std::string xml_map(const runtime::Job& job, const runtime::NodePool& pool,
                    const std::map<const runtime::Node*, std::vector<const runtime::Proc*>>& placed,
                    const std::string& mapping, const std::string& binding)
{
    std::string out = fmt::format("<map jobid=\"{}\" mapping=\"{}\" ranking=\"{}\" binding=\"{}\">\n", attr(job.nspace),
                                  attr(mapping),
                                  attr(upper(job.mapping.rank_by == runtime::RankBy::unset ? "as mapped"
                                                                                            : runtime::to_string(job.mapping.rank_by))),
                                  attr(binding));
    for (const runtime::Node* node : pool.nodes()) {
        auto it = placed.find(node);
        if (it == placed.end()) continue;
        out += fmt::format("    <host name=\"{}\" slots=\"{}\" max_slots=\"{}\">\n", attr(node->name), node->slots,
                           node->slots_max);
        for (const runtime::Proc* proc : it->second) {
            out += fmt::format("        <process rank=\"{}\" app=\"{}\" local_rank=\"{}\"", proc->rank, proc->app_index,
                               proc->local_rank);
            if (!proc->binding.empty()) {
                out += fmt::format(" {}=\"{}\"", proc->cpuset.empty() ? "not_bound" : "bound", attr(proc->binding));
            }
            out += "/>\n";
        }
        out += "    </host>\n";
    }
    return out + "</map>\n";
}

}  // namespace

std::string cpus_report(const runtime::Job& job, const runtime::NodePool& pool)
{
    std::string out;
    if (job.reports.cpus_hosts.empty()) {
        for (const runtime::Node* node : pool.nodes()) {
            if (!node_is_usable(*node)) continue;
            job.reports.xml ? xml_node_cpus(job, node->name, node, out) : node_cpus(job, node->name, node, out);
        }
    } else {
        for (const std::string& name : job.reports.cpus_hosts) {
            job.reports.xml ? xml_node_cpus(job, name, pool.find(name), out) : node_cpus(job, name, pool.find(name), out);
        }
    }
    return out;
}

std::string topology_report(const runtime::Job& job, const runtime::NodePool& pool)
{
    std::string out;
    if (job.reports.xml) {
        if (job.reports.topology_hosts.empty()) {
            for (const runtime::Node* node : pool.nodes()) xml_node_topology(node->name, node, out);
        }
        for (const std::string& name : job.reports.topology_hosts) xml_node_topology(name, pool.find(name), out);
        return out;
    }
    if (job.reports.topology_hosts.empty()) {
        for (const runtime::Node* node : pool.nodes()) node_topology(*node, out);
    } else {
        for (const std::string& name : job.reports.topology_hosts) {
            if (const runtime::Node* node = pool.find(name)) {
                node_topology(*node, out);
            } else {
                out += "=================================================================\n";
                out += fmt::format("TOPOLOGY FOR NODE {}: no such node in the DVM\n", name);
            }
        }
    }
    out += "=================================================================\n";
    return out;
}

std::string allocation_report(const runtime::NodePool& pool, bool xml)
{
    if (xml) {
        std::string out = "<allocation>\n";
        for (const runtime::Node* node : pool.nodes()) {
            if (!node_is_usable(*node)) continue;
            out += fmt::format("    <host name=\"{}\" slots=\"{}\" max_slots=\"{}\" slots_inuse=\"{}\" state=\"{}\"/>\n",
                               attr(node->name), node->slots, node->slots_max, node->slots_inuse,
                               upper(runtime::to_string(node->state)));
        }
        return out + "</allocation>\n";
    }
    std::string out = "======================   ALLOCATED NODES   ======================\n";
    for (const runtime::Node* node : pool.nodes()) {
        if (!node_is_usable(*node)) continue;
        out += fmt::format("    {}: slots={} max_slots={} slots_inuse={} state={}\n", node->name, node->slots,
                           node->slots_max, node->slots_inuse, upper(runtime::to_string(node->state)));
    }
    out += "=================================================================\n";
    return out;
}

std::string map_report(const runtime::Job& job, const runtime::NodePool& pool)
{
    // Nodes in the pool's order, each with the job's ranks on it in rank order.
    std::map<const runtime::Node*, std::vector<const runtime::Proc*>> placed;
    for (const auto& proc : job.procs) placed[proc->node].push_back(proc.get());
    int total_slots = 0;
    for (const runtime::Node* node : pool.nodes()) {
        if (node_is_usable(*node)) total_slots += node->slots;
    }
    // Unset binds nothing (odls/default binds only when asked).
    // Without --bind-to, the level PRRTE's default picks for this job (rmaps_binding.cc).
    std::string binding = job.mapping.bind_to == runtime::BindTo::unset
                              ? std::string(runtime::to_string(default_binding_level(job))) + " (default)"
                              : runtime::to_string(job.mapping.bind_to);
    if (job.reports.xml) return xml_map(job, pool, placed, mapping_policy(job.mapping), upper(binding));
    std::string out = "========================   JOB MAP   ========================\n";
    out += fmt::format("Data for JOB {} Total slots allocated {}\n", job.nspace, total_slots);
    out += fmt::format("    Mapping policy: {}  Ranking policy: {}  Binding policy: {}\n", mapping_policy(job.mapping),
                       upper(job.mapping.rank_by == runtime::RankBy::unset ? "as mapped"
                                                                            : runtime::to_string(job.mapping.rank_by)),
                       upper(binding));
    // MPMD apps with their own --map-by (the job's policy above is the others').
    for (const runtime::AppContext& app : job.apps) {
        if (!app.map_by.empty()) out += fmt::format("    App {} mapping policy: {}\n", app.index, upper(app.map_by));
    }
    for (const runtime::Node* node : pool.nodes()) {
        auto it = placed.find(node);
        if (it == placed.end()) continue;
        out += fmt::format("\nData for node: {}\tNum slots: {}\tMax slots: {}\tNum procs: {}\n", node->name, node->slots,
                           node->slots_max, it->second.size());
        for (const runtime::Proc* proc : it->second) {
            out += fmt::format("        Process jobid: {} App: {} Process rank: {} Local rank: {}", job.nspace,
                               proc->app_index, proc->rank, proc->local_rank);
            // Where placement bound it (rmaps/base fills it at map time); nothing while it is unbound,
            // or why not when a rule chose not to (a node sharing its machine's CPUs).
            if (!proc->binding.empty()) {
                out += fmt::format(" {}: {}", proc->cpuset.empty() ? "Not bound" : "Bound", proc->binding);
            }
            out += "\n";
        }
    }
    out += "\n=============================================================\n";
    return out;
}

}  // namespace prte::rmaps::base
