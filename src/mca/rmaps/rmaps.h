// The RMAPS (resource mapping) framework: places a job's processes on nodes.
//
// Multi-select: the base offers the job to each active mapper in priority order and the first
// that does not answer take_next_option maps it (ppr takes ppr:N:<object>, seq takes seq, and
// round_robin by slot, by node and by object). The base computes the candidate nodes, so a
// mapper never sees a node that is down, not in the app's --host list or --hostfile, or departing
// in a shrink (spec: elastic-dvm-spec.txt, hazard 1); and it ranks the result (local and node
// ranks).
//
// Threading: called on the progress thread from the MAP state.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::rmaps {

// 2: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 3: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 3;

struct MapContext {
    // For each app (by index), the nodes it may use, each once: in pool order, or in the order its
    // --hostfile (else its --host list) names them; with both, the hostfile's nodes that --host
    // also names.
    std::vector<std::vector<runtime::Node*>> app_nodes;
    // Whether the user or resource manager gave the slot counts (else they came from the
    // hardware). It no longer decides oversubscription (base::oversubscribe_allowed), but stays
    // here so that a mapper built against an older header finds the fields below where it expects.
    bool slots_given = false;
    // New fields go at the end, so that a mapper built against an older header still finds the
    // ones it knows where it expects them.
    //
    // For each app (by index), the nodes its --hostfile (else its --host list) names, one entry
    // per mention in the order written, repeats kept and ranges expanded: a hostfile's lines, as
    // --map-by seq places ranks. Empty for an app that names no hosts. Every entry is a node of
    // the DVM, but not necessarily one the app may use (down, departing, or not in its --host
    // list): check it against app_nodes.
    std::vector<std::vector<runtime::Node*>> app_named_nodes;
    // For each app (by index), the most slots it may use on a node its --host list gave a count
    // ("--host vm:2", or a name repeated): the node's own slot count stays, the app's use of it is
    // capped (PRRTE's hosts doc). Beyond the cap is oversubscribing, as beyond a node's slots.
    // Nodes without a count are not in the map. Read it through base::app_free_slots and the
    // app's base::check_room.
    std::vector<std::map<const runtime::Node*, int>> app_slot_caps;
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
