// Where a process is bound (--bind-to): the hwloc object of the policy's type that its local rank
// lands on, objects taken in hwloc's logical order and the local rank taken modulo their number.
// The CPU set is computed here, in the daemon; the child only applies it (sched_setaffinity is
// async-signal-safe, hwloc calls after fork are not).
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

    // nullopt for BindTo::none and BindTo::unset. The topology is loaded on first use.
    Status binding_for(runtime::BindTo policy, int local_rank, std::optional<Binding>& binding);

  private:
    Status load();

    hwloc_topology_t topology_ = nullptr;  // borrowed: runtime::shared_topology()
};

}  // namespace prte::odls::default_component
