// The ras/simulator component's descriptor: PRRTE's parameters and a query that offers the module
// only when a node count is set. The work is in ras_simulator_module.cc.
#include <memory>
#include <new>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/ras.h"
#include "mca/ras/simulator/ras_simulator_module.h"
#include "runtime/runtime.h"

namespace {

// PRRTE's: above every allocator, so that the simulated nodes are the whole allocation.
constexpr int kPriority = 1000;

// Owned by the registry, which outlives every component.
const prte::mca::Param* num_nodes_param = nullptr;
const prte::mca::Param* topo_files_param = nullptr;
const prte::mca::Param* slots_param = nullptr;
const prte::mca::Param* max_slots_param = nullptr;

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    prte::mca::register_params_safely([&] {
        num_nodes_param = &registry.register_int(
            {"ras", "simulator", "num_nodes"}, 0,
            "How many nodes to simulate (nodeA0, nodeA1, ...): the DVM's whole allocation, onto which jobs are "
            "mapped but never launched (prun --map-by ...:DONOTLAUNCH). 0: ras/simulator is not used",
            {0, 1 << 20});
        topo_files_param = &registry.register_string(
            {"ras", "simulator", "topo_files"}, "",
            "Comma-separated hwloc XML files (lstopo --of xml) giving the simulated nodes' topologies: node i takes "
            "file i modulo their number. Empty: every simulated node has this node's topology");
        slots_param = &registry.register_string(
            {"ras", "simulator", "slots"}, "",
            "Comma-separated slot counts of the simulated nodes, one per node, the last one given counting for the "
            "nodes after it. Empty: what prte_set_slots gives each node's topology (its cores by default)");
        max_slots_param = &registry.register_string(
            {"ras", "simulator", "max_slots"}, "",
            "Comma-separated max_slots of the simulated nodes (hard limits, oversubscription included), one per "
            "node, the last one given counting for the nodes after it. Empty or 0: no limit");
    });
}

void query(const prte::mca::QueryContext&, prte::mca::QueryResult& result) noexcept
{
    // Only when asked for: a DVM that was not told to simulate must never find made-up nodes.
    int64_t num_nodes = num_nodes_param ? num_nodes_param->as_int() : 0;
    if (num_nodes <= 0) {
        result.reason = "ras_simulator_num_nodes is 0: no node to simulate";
        return;
    }
    prte::mca::offer_module(result, kPriority, [&] {
        prte::ras::simulator::Options options{num_nodes, topo_files_param->as_string(), slots_param->as_string(),
                                              max_slots_param->as_string()};
        return std::make_unique<prte::ras::simulator::SimulatorModule>(
            std::move(options), prte::runtime::Runtime::instance().topologies());
    });
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "ras",
                   .name = prte::ras::simulator::kComponentName,
                   .interface_version = prte::ras::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "simulated nodes with topologies from hwloc XML files, mapped onto but never "
                                  "launched on (ras_simulator_num_nodes)",
                   .register_params = register_params,
                   .query = query)
