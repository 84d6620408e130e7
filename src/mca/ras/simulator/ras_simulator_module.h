// ras/simulator: a DVM of made-up nodes, to see where processes would go on a machine one does not
// have (PRRTE's ras/simulator, with its parameter names). ras_simulator_num_nodes nodes, named as
// PRRTE names them (nodeA0, nodeA1, ...; zero-padded to the digits of the count), each with the
// hwloc topology of a file of ras_simulator_topo_files (node i takes file i modulo their number;
// none: this node's own topology) and ras_simulator_slots slots (default: its cores).
//
// The nodes are `simulated`: up, with a topology and slots, so that rmaps maps onto them, but no
// daemon is ever started there, and a job placed on one is only mapped and reported, never
// launched (prun --map-by ...:DONOTLAUNCH; plm/base refuses it otherwise). Like PRRTE's, the
// component is selected only when asked for (a node count), above every other, and supplies the
// whole allocation: it refuses --host and --hostfile rather than ignore them.
#pragma once

#include <string>

#include "mca/ras/ras.h"
#include "runtime/hw_topology.h"

namespace prte::ras::simulator {

inline constexpr const char* kComponentName = "simulator";

// The parameters as given (ras_simulator_*), checked by allocate(), which names the one at fault.
struct Options {
    int64_t num_nodes = 0;
    std::string topo_files;  // comma-separated hwloc XML files
    std::string slots;       // comma-separated counts, one per node, the last repeated
    std::string max_slots;   // the same for max_slots (0: no hard limit)
};

// "nodeA0" .. "nodeA<n-1>", zero-padded to the digits of `count`, as PRRTE names them.
std::string node_name(int64_t index, int64_t count);

class SimulatorModule : public Module {
  public:
    // Topologies are shared through `topologies` (the master's, Runtime::topologies()).
    SimulatorModule(Options options, runtime::HwTopologyCache& topologies)
        : options_(std::move(options)), topologies_(topologies)
    {
    }

    Status allocate(const AllocateContext& context, runtime::NodePool& pool) override;

  private:
    Options options_;
    runtime::HwTopologyCache& topologies_;
};

}  // namespace prte::ras::simulator
