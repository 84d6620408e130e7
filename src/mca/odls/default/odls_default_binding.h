// Where a process is bound: the CPUs the master's placement chose for it (rmaps/base computes them
// on the node's topology and sends them in the launch message as Proc::cpuset), applied here as
// they are, limited to the CPUs this daemon may use. A daemon given another machine's topology
// (hwloc_use_topo_file, the test-bed's pretend nodes) may be handed CPUs this machine lacks: the
// process then gets those it has, and the report says so. The child only applies the set
// (sched_setaffinity is async-signal-safe; nothing here runs after fork).
#pragma once

#include <sched.h>

#include <optional>
#include <string>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::odls::default_component {

struct Binding {
    cpu_set_t cpus;
    std::string description;  // "core 1 (cpus 2-3)", for reports and messages
};

// nullopt when the process is not bound (no cpuset, or none of its CPUs exist here). A cpuset
// that does not parse is an error naming it.
Status binding_for(const runtime::Proc& proc, std::optional<Binding>& binding);

}  // namespace prte::odls::default_component
