// rmaps/ppr: --map-by ppr:N:<object>, "N processes per resource". ppr:N:node places N processes
// on each of an app's candidate nodes; ppr:N:package|numa|core|hwthread places N per such object,
// so N times the node's count of it (Node::topology, reported by the node's daemon). A node's
// processes get consecutive ranks, nodes in candidate order; the object each one is bound to is
// chosen on the node by odls.
//
// Without -n the app gets everything ppr places; with -n it gets the first n in that order, and
// asking for more than ppr places is an error. Slots are respected as round_robin does: beyond a
// node's free slots only when oversubscribing is allowed (base::oversubscribe_allowed), never
// beyond its hard limit. Any other policy is left to the next mapper.
#pragma once

#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::ppr {

class PprModule final : public Module {
  public:
    Status map(runtime::Job& job, const MapContext& context) override;
};

}  // namespace prte::rmaps::ppr
