// rmaps/round_robin: places an app's processes on its candidate nodes by slot (fill each node's
// free slots in node order; also the default when no --map-by is given) or by node (one process
// per node in turn). By core, package, numa or hwthread it chooses nodes as by slot: the object a
// process is bound to is chosen on its node by odls, which knows the node's topology. ppr and seq
// are left to their mappers.
//
// Oversubscription follows PRRTE: allowed only when the user asked for it (:OVERSUBSCRIBE), whether
// the slot counts were given or came from the hardware. Extra processes
// are spread evenly over the nodes, never beyond a node's hard limit (slots_max).
#pragma once

#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::round_robin {

class RoundRobinModule final : public Module {
  public:
    Status map(runtime::Job& job, const MapContext& context) override;
};

}  // namespace prte::rmaps::round_robin
