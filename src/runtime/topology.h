// This node's hardware as the DVM sees it (hwloc): one topology per process, discovered once (or
// read from the file hwloc_use_topo_file names) and shared by everything that needs it - the
// topology a daemon sends when it calls home and `prte_set_slots` turns into slot counts, process
// binding, and the PMIx server (which would otherwise discover it all again).
#pragma once

#include "runtime/preload.h"

#include <hwloc.h>

#include <string>

#include "runtime/node.h"
#include "util/status.h"

namespace prte::runtime {

// Loads the process's topology from `file` (hwloc_use_topo_file: an hwloc XML file, so that a
// daemon of the test-bed can pretend to be another machine), or by discovering this node when
// `file` is empty. Called once by program::init, after the parameters are read and before any
// thread starts (the first load adjusts the environment hwloc reads). A file that cannot be read
// or is no topology is an error naming it; a topology loaded already (by shared_topology) is an
// internal error when a file is asked for, since the file would be ignored.
Status load_shared_topology(const std::string& file);

// The process's topology: the one load_shared_topology loaded, else discovered at the first call
// (programs that read no parameters, unit tests). nullptr if hwloc cannot read this node. Never
// destroyed: it lives as long as the process.
hwloc_topology_t shared_topology();

// Packages, NUMA domains, cores and hardware threads of this machine; zeros where hwloc fails.
NodeTopology local_topology();

// local_machine(): runtime/preload.h.

}  // namespace prte::runtime
