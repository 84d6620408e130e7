// Shared code of the RMAPS framework.
#pragma once

#include <functional>

#include "mca/base/framework.h"
#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::base {

mca::Framework& framework();
std::vector<Module*> modules();

// Decides which pool nodes a job may use. The DVM passes one that also excludes nodes whose
// daemon is not wired or is departing; the default accepts nodes that are up or not yet known.
using NodeFilter = std::function<bool(const runtime::Node&)>;
bool node_is_usable(const runtime::Node& node);

// Builds the MapContext, offers the job to the mappers, then assigns ranks. On failure the job is
// left unmapped (no procs, node counters restored).
Status map_job(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter = node_is_usable);

// Creates the next proc of `job` on `node` for app `app_index` and counts it against the node.
runtime::Proc& claim_slot(runtime::Job& job, runtime::Node& node, int app_index);

// Undoes every claim_slot of `job` so it can be mapped again (a remap onto surviving nodes after
// a shrink, spec: shrink-campaign-fence-tracking.txt, Step 4).
void unmap_job(runtime::Job& job);

}  // namespace prte::rmaps::base
