// ras/hosts: the DVM's nodes from --hostfile and --host, else from a default hostfile, else the
// local node alone. It is the fallback below any scheduler's RAS component (priority 10), and it
// serves dynamic requests that name their hosts (--add-host, --add-hostfile, PMIX_ALLOC_NODE_LIST);
// a request that only asks for a number of nodes is a scheduler's, so it passes it on.
#pragma once

#include <cstdint>
#include <string>

#include "mca/ras/ras.h"

namespace prte::ras::hosts {

inline constexpr const char* kComponentName = "hosts";

// This machine as a node: its hostname, and as many slots as hwloc finds cores (else hardware
// threads, else 1), with slots_given false since nobody stated the count.
runtime::Node local_node();

class HostsModule : public Module {
  public:
    // `default_hostfile` is the ras_hosts_default_hostfile parameter: read when the DVM is
    // started with neither --hostfile nor --host. Empty means none.
    explicit HostsModule(std::string default_hostfile = {});

    Status allocate(const AllocateContext& context, runtime::NodePool& pool) override;
    Status modify(const runtime::AllocationRequest& request, RequestCompletion&& completion) override;

  private:
    Status grow(const runtime::AllocationRequest& request, RequestCompletion completion);
    Status release(const runtime::AllocationRequest& request, RequestCompletion completion);

    std::string default_hostfile_;
    uint64_t allocations_granted_ = 0;  // numbers the ids of new allocations that came without one
};

}  // namespace prte::ras::hosts
