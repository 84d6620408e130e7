// rmaps/round_robin: places an app's processes on its candidate nodes by slot (fill each node's
// free slots in node order; also the default when no --map-by is given) or by node (one process
// per node in turn). Any other policy is left to the next mapper.
//
// Oversubscription follows PRRTE: allowed when the user asked for it, or when they said nothing
// and the slot counts were not given (so they are guesses); forbidden otherwise. Extra processes
// are spread evenly over the nodes, never beyond a node's hard limit (slots_max).
#pragma once

#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::round_robin {

class RoundRobinModule final : public Module {
  public:
    Status map(runtime::Job& job, const MapContext& context) override;
};

}  // namespace prte::rmaps::round_robin
