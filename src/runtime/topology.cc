#include "runtime/topology.h"

#include <hwloc.h>

namespace prte::runtime {

NodeTopology local_topology()
{
    NodeTopology t;
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) return t;
    if (hwloc_topology_load(topology) == 0) {
        t.packages = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
        t.numa_domains = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
        t.cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
        t.hwthreads = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    }
    hwloc_topology_destroy(topology);
    return t;
}

}  // namespace prte::runtime
