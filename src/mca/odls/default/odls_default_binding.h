// Where a process is bound (--bind-to): the hwloc object of the level that its local rank lands
// on, objects taken in hwloc's logical order and the local rank taken modulo their number. The CPU
// set is computed here, in the daemon; the child only applies it (sched_setaffinity is
// async-signal-safe, hwloc calls after fork are not).
//
// PRRTE's rules (docs/user-guide.md, "Binding"):
//  - no --bind-to: the mapping's object when the job maps by one (hwthread, core, numa, package,
//    or ppr's object), else a core; and no binding at all on a node with more of the job's
//    processes than it has CPUs (cores; hwthreads when binding to hwthreads);
//  - --bind-to <level>: more processes on an object than it has CPUs is refused, naming the node
//    and the object, unless :overload-allowed; a level the node does not have is refused, naming
//    both, unless :if-supported (then the process runs unbound).
#pragma once

#include <hwloc.h>
#include <sched.h>

#include <optional>
#include <string>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::odls::default_component {

struct Binding {
    cpu_set_t cpus;
    std::string description;  // "core 1 (cpus 2-3)", for messages
};

class Topology {
  public:
    Topology() = default;
    ~Topology();
    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;

    // nullopt when the process is not bound. `local_size`: the job's processes on this node;
    // `node`: its name, for messages. The topology is loaded on first use.
    Status binding_for(const runtime::MappingPolicy& mapping, int local_rank, int local_size, const std::string& node,
                       std::optional<Binding>& binding);

  private:
    Status load();

    hwloc_topology_t topology_ = nullptr;  // borrowed: runtime::shared_topology()
};

}  // namespace prte::odls::default_component
