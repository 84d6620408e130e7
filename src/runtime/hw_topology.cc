#include "runtime/hw_topology.h"

#include <cstdlib>

#include <fmt/format.h>

#include "runtime/topology.h"

namespace prte::runtime {
namespace {

hwloc_obj_type_t type_of(HwLevel level)
{
    switch (level) {
    case HwLevel::hwthread: return HWLOC_OBJ_PU;
    case HwLevel::core: return HWLOC_OBJ_CORE;
    case HwLevel::l1cache: return HWLOC_OBJ_L1CACHE;
    case HwLevel::l2cache: return HWLOC_OBJ_L2CACHE;
    case HwLevel::l3cache: return HWLOC_OBJ_L3CACHE;
    case HwLevel::numa: return HWLOC_OBJ_NUMANODE;
    case HwLevel::package: return HWLOC_OBJ_PACKAGE;
    case HwLevel::machine: return HWLOC_OBJ_MACHINE;
    }
    return HWLOC_OBJ_MACHINE;
}

// A fresh topology that keeps no I/O objects (the DVM never uses them) and loads what `set_source`
// points it at.
template <typename SetSource>
hwloc_topology_t load_with(SetSource set_source, std::string& error, const std::string& source)
{
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0) {
        error = fmt::format("hwloc cannot start reading {}", source);
        return nullptr;
    }
    if (set_source(t) != 0) {
        error = fmt::format("hwloc cannot read {}: not a topology it understands", source);
        hwloc_topology_destroy(t);
        return nullptr;
    }
    if (hwloc_topology_load(t) != 0) {
        error = fmt::format("hwloc cannot load the topology in {}", source);
        hwloc_topology_destroy(t);
        return nullptr;
    }
    if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) <= 0) {
        error = fmt::format("the topology in {} has no processing units", source);
        hwloc_topology_destroy(t);
        return nullptr;
    }
    return t;
}

}  // namespace

const char* to_string(HwLevel level)
{
    switch (level) {
    case HwLevel::hwthread: return "hwthread";
    case HwLevel::core: return "core";
    case HwLevel::l1cache: return "l1cache";
    case HwLevel::l2cache: return "l2cache";
    case HwLevel::l3cache: return "l3cache";
    case HwLevel::numa: return "numa";
    case HwLevel::package: return "package";
    case HwLevel::machine: return "node";
    }
    return "?";
}

HwTopology::HwTopology(hwloc_topology_t topology, bool owned) : topology_(topology), owned_(owned) { index(); }

HwTopology::~HwTopology()
{
    if (owned_ && topology_) hwloc_topology_destroy(topology_);
}

void HwTopology::index()
{
    for (HwLevel level : {HwLevel::hwthread, HwLevel::core, HwLevel::l1cache, HwLevel::l2cache, HwLevel::l3cache,
                          HwLevel::numa, HwLevel::package, HwLevel::machine}) {
        auto& list = by_level_[static_cast<int>(level)];
        hwloc_obj_type_t type = type_of(level);
        int n = hwloc_get_nbobjs_by_type(topology_, type);
        for (int i = 0; i < n; ++i) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, type, static_cast<unsigned>(i));
            // An object with no CPU (a memory-only NUMA node) can hold no process.
            if (obj && obj->cpuset && !hwloc_bitmap_iszero(obj->cpuset)) list.push_back(obj);
        }
    }
}

std::shared_ptr<const HwTopology> HwTopology::from_xml(const std::string& xml, const std::string& source,
                                                       std::string& error)
{
    hwloc_topology_t t = load_with(
        [&](hwloc_topology_t topo) { return hwloc_topology_set_xmlbuffer(topo, xml.data(), static_cast<int>(xml.size() + 1)); },
        error, source);
    if (!t) return nullptr;
    return std::shared_ptr<const HwTopology>(new HwTopology(t, true));
}

std::shared_ptr<const HwTopology> HwTopology::from_synthetic(const std::string& description, std::string& error)
{
    hwloc_topology_t t = load_with(
        [&](hwloc_topology_t topo) { return hwloc_topology_set_synthetic(topo, description.c_str()); }, error,
        "synthetic topology '" + description + "'");
    if (!t) return nullptr;
    return std::shared_ptr<const HwTopology>(new HwTopology(t, true));
}

std::shared_ptr<const HwTopology> HwTopology::local()
{
    static std::shared_ptr<const HwTopology> shared = [] {
        hwloc_topology_t t = shared_topology();
        return t ? std::shared_ptr<const HwTopology>(new HwTopology(t, false)) : nullptr;
    }();
    return shared;
}

std::string HwTopology::xml() const
{
    char* buffer = nullptr;
    int length = 0;
    if (hwloc_topology_export_xmlbuffer(topology_, &buffer, &length, 0) != 0 || !buffer) return {};
    std::string text(buffer, length > 0 ? static_cast<size_t>(length - 1) : 0);  // length counts the NUL
    hwloc_free_xmlbuffer(topology_, buffer);
    return text;
}

NodeTopology HwTopology::counts() const
{
    NodeTopology c;
    c.packages = static_cast<int>(objects(HwLevel::package).size());
    c.numa_domains = static_cast<int>(objects(HwLevel::numa).size());
    c.cores = static_cast<int>(objects(HwLevel::core).size());
    c.hwthreads = static_cast<int>(objects(HwLevel::hwthread).size());
    return c;
}

const std::vector<hwloc_obj_t>& HwTopology::objects(HwLevel level) const { return by_level_[static_cast<int>(level)]; }

const std::vector<hwloc_obj_t>& HwTopology::cpus(bool hwthreads) const
{
    if (hwthreads || objects(HwLevel::core).empty()) return objects(HwLevel::hwthread);
    return objects(HwLevel::core);
}

HwTopologyPtr HwTopologyCache::get(const std::string& xml, const std::string& source, std::string& error)
{
    if (auto it = by_text_.find(xml); it != by_text_.end()) return it->second;
    HwTopologyPtr topology = HwTopology::from_xml(xml, source, error);
    if (topology) by_text_.emplace(xml, topology);
    return topology;
}

std::string cpu_list(hwloc_const_cpuset_t set)
{
    char* text = nullptr;
    if (hwloc_bitmap_list_asprintf(&text, set) < 0 || !text) return "?";
    std::string out(text);
    free(text);
    return out;
}

}  // namespace prte::runtime
