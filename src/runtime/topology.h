// This node's hardware as the DVM counts it (hwloc): what a daemon reports when it calls home, and
// what `prte_set_slots` turns into slot counts.
#pragma once

#include "runtime/node.h"

namespace prte::runtime {

// Packages, NUMA domains, cores and hardware threads of this machine; zeros where hwloc fails.
NodeTopology local_topology();

}  // namespace prte::runtime
