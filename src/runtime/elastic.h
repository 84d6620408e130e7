// The types the elastic DVM keeps about size changes: dynamic allocation requests as they reach
// the RAS framework, and the shrink campaigns they start. The fence and held-job bookkeeping
// that uses them lives with the state machine; these are the shapes every layer agrees on.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/node.h"

namespace prte::runtime {

// spec: job-launch-state-machine.txt, "DVM Extension": NEW/EXTEND grow, RELEASE shrinks.
enum class AllocDirective { new_allocation, extend, release, reacquire, cancel };
const char* to_string(AllocDirective directive);

// A dynamic allocation request (PMIx_Allocation_request, or --add-host from a job) on its way to
// the RAS modules' modify() entry points.
struct AllocationRequest {
    AllocDirective directive = AllocDirective::extend;
    // The process that asked; absent for a size change a scheduler pushes by itself, which
    // therefore gets no completion event (spec: elastic-dvm-spec.txt, "Delivery guarantees").
    std::optional<pmix_proc_t> requester;
    std::string alloc_id;                // PMIX_ALLOC_ID
    std::string req_id;                  // PMIX_ALLOC_REQ_ID, empty when none was supplied
    std::vector<std::string> node_list;  // PMIX_ALLOC_NODE_LIST, expanded; or --add-host names
    std::string hostfile;                // --add-hostfile
    uint64_t num_nodes = 0;              // PMIX_ALLOC_NUM_NODES
    std::vector<pmix_info_t> info;       // the request's full info, for component-specific keys

    AllocationRequest() = default;
    AllocationRequest(const AllocationRequest& other);
    AllocationRequest& operator=(const AllocationRequest& other);
    ~AllocationRequest();
};

// One in-progress shrink (spec: shrink-campaign-fence-tracking.txt, Step 1a). Completion is
// collective: the whole campaign is torn down at once when every daemon has received the shrink
// order (spec: collective-shrink-completion.txt), so there is no per-target counting here.
struct ShrinkCampaign {
    uint64_t id = 0;
    std::vector<Rank> targets;             // daemon ranks leaving the DVM
    std::vector<std::string> target_nodes;  // their node names, for the RAS release hooks
    std::optional<pmix_proc_t> requester;
    std::string alloc_id;
    std::string req_id;
};

}  // namespace prte::runtime
