// ras/ssh: a pool of spare hosts reachable with the ssh launcher, named by ras_ssh_pool (a
// hostfile, same syntax as --hostfile). It supplies no node at start-up; when the DVM grows it
// lends hosts from the pool - any N of them for PMIX_ALLOC_NUM_NODES, or those a node list names
// when every one of them is a pool host - and when a shrink completes (or a grow fails) it takes
// back its own hosts among the departed ones, and only those: a release may span allocations of
// several components (spec: elastic-dvm-spec.txt, "Resource release at shrink completion").
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "mca/ras/ras.h"

namespace prte::ras::ssh {

inline constexpr const char* kComponentName = "ssh";

class SshPoolModule : public Module {
  public:
    explicit SshPoolModule(std::string pool_file) : pool_file_(std::move(pool_file)) {}

    Status allocate(const AllocateContext& context, runtime::NodePool& pool) override;
    Status modify(const runtime::AllocationRequest& request, RequestCompletion&& completion) override;
    void shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool) noexcept override;
    void grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool) noexcept override;
    std::optional<std::vector<int>> lendable_slots() noexcept override;

    // Hosts of the pool not lent out now (for tests and verbose output).
    std::vector<std::string> spare() const;

  private:
    Status load();
    void take_back(const std::vector<std::string>& names, const runtime::NodePool& pool);

    std::string pool_file_;
    bool loaded_ = false;
    std::vector<runtime::Node> hosts_;  // the pool, in file order
    std::set<std::string> lent_;
    uint64_t allocations_granted_ = 0;
};

}  // namespace prte::ras::ssh
