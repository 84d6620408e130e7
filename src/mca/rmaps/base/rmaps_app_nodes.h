// Which nodes an app may use: the pool, or what its --hostfile and --host name. This is where the
// base turns an app's host restrictions into the candidate lists of rmaps::MapContext. Not
// installed: mappers see only the result, in the MapContext.
#pragma once

#include <map>
#include <vector>

#include "mca/rmaps/base/rmaps_base.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "util/status.h"

namespace prte::rmaps::base {

struct AppNodes {
    std::vector<runtime::Node*> usable;  // becomes MapContext::app_nodes[app]
    std::vector<runtime::Node*> named;   // becomes MapContext::app_named_nodes[app]
    std::map<const runtime::Node*, int> slot_caps;  // becomes MapContext::app_slot_caps[app]
};

// Resolves `app`'s --hostfile (read now; slot counts in it do not change the pool) and --host
// list against `pool`, keeping the nodes `filter` accepts (a count in the --host list caps the
// app's use of that node, `slot_caps`; the hostfile's counts are not used):
//   - neither given: every node `filter` accepts, in pool order;
//   - one given: the nodes it names, in its order, each once;
//   - both given: the hostfile's nodes that the --host list also names, in the hostfile's order.
// `named` is the hostfile's mentions (else the --host list's), repeats kept, filter not applied.
// Errors, one line each, naming the app: the hostfile cannot be read, is malformed or lists no
// host; a --host entry is malformed; a name is not a node of the DVM; no usable node remains.
Status resolve_app_nodes(const runtime::AppContext& app, runtime::NodePool& pool, const NodeFilter& filter,
                         AppNodes& out);

}  // namespace prte::rmaps::base
