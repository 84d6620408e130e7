#include "runtime/topology.h"

#include <cstdlib>

namespace prte::runtime {
namespace {

// hwloc loads every plugin it finds when the first topology of a process is created. Debian's
// libhwloc-plugins brings three a DVM never uses - displays (gl: X11), OpenCL devices and the
// libxml2 XML backend (hwloc's own XML code serves instead) - and loading them (X11, the OpenCL
// ICD loader, libxml2 and ICU) costs about 9 ms of CPU per process: more than discovering the
// node. The PCI plugin stays (I/O locality). A user's own HWLOC_PLUGINS_BLACKLIST or
// HWLOC_COMPONENTS wins; the variable is set only around the first init, so launched processes
// never inherit it.
constexpr const char* kUnusedPlugins = "hwloc_gl,hwloc_opencl,hwloc_xml_libxml";

hwloc_topology_t load()
{
    bool skip = !std::getenv("HWLOC_PLUGINS_BLACKLIST") && !std::getenv("HWLOC_COMPONENTS");
    if (skip) setenv("HWLOC_PLUGINS_BLACKLIST", kUnusedPlugins, 1);
    hwloc_topology_t topology = nullptr;
    int rc = hwloc_topology_init(&topology);
    if (skip) unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (rc != 0) return nullptr;
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
