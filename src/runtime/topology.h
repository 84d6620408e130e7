// This node's hardware as the DVM sees it (hwloc): one topology per process, discovered once and
// shared by everything that needs it - the counts a daemon reports when it calls home and
// `prte_set_slots` turns into slot counts, process binding, and the PMIx server (which would
// otherwise discover it all again).
#pragma once

#include <hwloc.h>

#include "runtime/node.h"

namespace prte::runtime {

// The process's topology, loaded at the first call (call it from main before other threads start:
// the first load adjusts the environment hwloc reads). nullptr if hwloc cannot read this node.
// Never destroyed: it lives as long as the process.
hwloc_topology_t shared_topology();

// Packages, NUMA domains, cores and hardware threads of this machine; zeros where hwloc fails.
NodeTopology local_topology();

}  // namespace prte::runtime
