// The RMAPS (resource mapping) framework: places a job's processes on nodes.
//
// Multi-select: the base offers the job to each active mapper in priority order and the first
// that does not answer take_next_option maps it (round_robin handles by-slot and by-node; ppr,
// seq and rank_file handle their own policies). The base computes the candidate nodes, so a
// mapper never sees a node that is down, not in the app's --host list, or departing in a shrink
// (spec: elastic-dvm-spec.txt, hazard 1); and it ranks the result (local and node ranks).
//
// Threading: called on the progress thread from the MAP state.
#pragma once

#include <cstdint>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "util/status.h"

namespace prte::rmaps {

inline constexpr uint32_t kInterfaceVersion = 1;

struct MapContext {
    // For each app (by index), the nodes it may use, in pool order.
    std::vector<std::vector<runtime::Node*>> app_nodes;
    // Whether the user or resource manager gave the slot counts; PRRTE allows oversubscription
    // by default only when they were not given.
    bool slots_given = false;
};

class Module : public mca::Module {
  public:
    ~Module() override;

    // Creates the job's procs (see base::claim_slot). Returns take_next_option when the job's
    // policy is not this mapper's, out_of_resource (with a message saying what was asked and
    // what is available) when it cannot be met.
    virtual Status map(runtime::Job& job, const MapContext& context) = 0;
};

}  // namespace prte::rmaps
