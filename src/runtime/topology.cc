#include "runtime/topology.h"

#include <cstdlib>

namespace prte::runtime {
namespace {

// hwloc loads every plugin it finds when the first topology of a process is created. Debian's
// libhwloc-plugins brings four a DVM never uses - displays (gl: X11), OpenCL devices, the libxml2
// XML backend (hwloc's own XML code serves instead) and PCI (the DVM keeps no I/O objects: hwloc 2
// filters them out by default, so the plugin was loaded for nothing, 0.1 ms) - and loading the
// first three (X11, the OpenCL ICD loader, libxml2 and ICU) cost about 9 ms of CPU per process:
// more than discovering the node.
constexpr const char* kUnusedPlugins = "hwloc_gl,hwloc_opencl,hwloc_xml_libxml,hwloc_pci";
// hwloc's x86 backend runs cpuid on every processor only to annotate what Linux's sysfs already
// describes (cache inclusiveness: the same objects either way); in a VM each cpuid traps to the
// hypervisor, and discovery took 0.8 ms instead of 0.37 ms here, in every prte and prted.
constexpr const char* kUnusedComponents = "-x86";

// A user's own HWLOC_PLUGINS_BLACKLIST or HWLOC_COMPONENTS wins; ours are set only around the
// first discovery (hwloc reads them then), so launched processes never inherit them.
class DiscoveryEnvironment {
  public:
    DiscoveryEnvironment()
    {
        if (std::getenv("HWLOC_PLUGINS_BLACKLIST") || std::getenv("HWLOC_COMPONENTS")) return;
        set_ = true;
        setenv("HWLOC_PLUGINS_BLACKLIST", kUnusedPlugins, 1);
        setenv("HWLOC_COMPONENTS", kUnusedComponents, 1);
    }
    ~DiscoveryEnvironment()
    {
        if (!set_) return;
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
        unsetenv("HWLOC_COMPONENTS");
    }

  private:
    bool set_ = false;
};

hwloc_topology_t load()
{
    DiscoveryEnvironment environment;
    hwloc_topology_t topology = nullptr;
    if (hwloc_topology_init(&topology) != 0) return nullptr;
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return nullptr;
    }
    return topology;
}

}  // namespace

hwloc_topology_t shared_topology()
{
    static hwloc_topology_t topology = load();
    return topology;
}

NodeTopology local_topology()
{
    NodeTopology t;
    hwloc_topology_t topology = shared_topology();
    if (!topology) return t;
    t.packages = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
    t.numa_domains = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    t.cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    t.hwthreads = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    return t;
}

}  // namespace prte::runtime
