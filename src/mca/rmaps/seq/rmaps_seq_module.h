// rmaps/seq: --map-by seq, one process per host entry, in order. The i-th process of an app goes
// on the i-th host its hostfile names (a line per process, repeats allowed, order kept), or its
// --host list when it has no hostfile, or the DVM's i-th usable node when it names no hosts
// (MapContext::app_named_nodes, else app_nodes).
//
// Without -n the app gets one process per entry; -n smaller than the list takes the first n
// entries, larger is an error naming both counts. An entry naming a node the app may not use
// (down, departing, or outside its --host list) is an error naming it, as is a node that cannot
// take its processes under the slot rules round_robin follows (base::check_room).
#pragma once

#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::seq {

class SeqModule final : public Module {
  public:
    Status map(runtime::Job& job, const MapContext& context) override;
};

}  // namespace prte::rmaps::seq
