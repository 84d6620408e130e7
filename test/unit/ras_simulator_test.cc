// The ras/simulator module (issue 25): the nodes it makes up - PRRTE's names, the topologies of
// ras_simulator_topo_files cycled over the nodes and shared, slots from the topology by
// prte_set_slots's rule or from ras_simulator_slots, simulated and up - and its one-line refusals naming the parameter at fault.
#include "mca/ras/simulator/ras_simulator_module.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mca/base/param.h"
#include "mca/plm/base/plm_base.h"
#include "runtime/hw_topology.h"
#include "temp_dir.h"

namespace {

using prte::Errc;
using prte::ras::AllocateContext;
using prte::ras::simulator::Options;
using prte::ras::simulator::SimulatorModule;
using prte::runtime::HwTopology;
using prte::runtime::HwTopologyCache;
using prte::runtime::Node;
using prte::runtime::NodePool;
using prte::test::TempDir;

// An hwloc XML file of the synthetic machine `description`, written into `dir`.
std::string topology_file(const TempDir& dir, const std::string& name, const std::string& description)
{
    std::string error;
    auto topology = HwTopology::from_synthetic(description, error);
    EXPECT_TRUE(topology) << error;
    return dir.write(name, topology ? topology->xml() : std::string());
}

struct Made {
    prte::Status status;
    NodePool pool;
    HwTopologyCache cache;
};

void allocate(Made& made, const Options& options, const AllocateContext& context = {})
{
    SimulatorModule module(options, made.cache);
    made.status = module.allocate(context, made.pool);
}

TEST(RasSimulator, NodesAreNamedAsPrrteNamesThem)
{
    EXPECT_EQ(prte::ras::simulator::node_name(0, 4), "nodeA0");
    EXPECT_EQ(prte::ras::simulator::node_name(3, 4), "nodeA3");
    EXPECT_EQ(prte::ras::simulator::node_name(0, 10), "nodeA00");
    EXPECT_EQ(prte::ras::simulator::node_name(11, 12), "nodeA11");
    EXPECT_EQ(prte::ras::simulator::node_name(7, 1000), "nodeA0007");  // the digits of the count
}

TEST(RasSimulator, TopologiesCycleOverTheNodesAndAreShared)
{
    TempDir dir;
    std::string smt = topology_file(dir, "smt.xml", "pack:2 l3:2 core:4 pu:2");
    std::string one = topology_file(dir, "one.xml", "pack:1 core:1 pu:1");
    Made made;
    allocate(made, {5, smt + "," + one, "", ""});
    ASSERT_TRUE(made.status) << made.status.message();
    ASSERT_EQ(made.pool.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        const Node& node = made.pool.at(i);
        EXPECT_EQ(node.name, "nodeA" + std::to_string(i));
        EXPECT_TRUE(node.simulated);
        EXPECT_EQ(node.state, prte::runtime::NodeState::up);
        EXPECT_EQ(node.ras_component, "simulator");
        EXPECT_FALSE(node.daemon_launched);
        ASSERT_TRUE(node.hw);
        // Files in turn: smt, one, smt, one, smt; slots from each one's cores, not given.
        int cores = i % 2 == 0 ? 16 : 1;
        EXPECT_EQ(node.topology.cores, cores) << node.name;
        EXPECT_EQ(node.slots, cores) << node.name;
        EXPECT_FALSE(node.slots_given);
        EXPECT_EQ(node.slots_max, 0);
    }
    EXPECT_EQ(made.pool.at(0).hw, made.pool.at(4).hw) << "one object per file";
    EXPECT_EQ(made.pool.at(0).topology.hwthreads, 32);
    EXPECT_EQ(made.cache.size(), 2u);
}

// Slots nobody gave follow prte_set_slots, as a real node's do (issue 43 item 2: one rule for
// "slots from the hardware"): with hwthreads, a node of 16 cores and 32 threads has 32.
TEST(RasSimulator, SlotsNobodyGaveFollowPrteSetSlots)
{
    TempDir dir;
    std::string smt = topology_file(dir, "smt.xml", "pack:2 l3:2 core:4 pu:2");
    prte::mca::ParamRegistry& params = prte::mca::ParamRegistry::instance();
    prte::plm::base::framework().register_params(params);
    const prte::mca::ParamOrigin origin{prte::mca::ParamSource::command_line, "--prtemca prte_set_slots"};
    params.set("prte_set_slots", "hwthreads", origin);
    Made made;
    allocate(made, {2, smt, "", ""});
    params.set("prte_set_slots", "cores", origin);  // the default again, for the tests after this one
    ASSERT_TRUE(made.status) << made.status.message();
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(made.pool.at(i).slots, 32) << made.pool.at(i).name;
        EXPECT_FALSE(made.pool.at(i).slots_given);
    }
}

TEST(RasSimulator, WithoutFilesEveryNodeIsThisOne)
{
    Made made;
    allocate(made, {2, "", "", ""});
    ASSERT_TRUE(made.status) << made.status.message();
    ASSERT_EQ(made.pool.size(), 2u);
    EXPECT_EQ(made.pool.at(0).hw, HwTopology::local());
    EXPECT_EQ(made.pool.at(1).hw, HwTopology::local());
}

TEST(RasSimulator, SlotsGivenPerNodeTheLastForTheRest)
{
    TempDir dir;
    std::string smt = topology_file(dir, "smt.xml", "pack:2 l3:2 core:4 pu:2");
    Made made;
    allocate(made, {4, smt, "2, 3", "0,8"});
    ASSERT_TRUE(made.status) << made.status.message();
    std::vector<int> slots, max;
    for (const Node* node : made.pool.nodes()) {
        slots.push_back(node->slots);
        max.push_back(node->slots_max);
        EXPECT_TRUE(node->slots_given);
    }
    EXPECT_EQ(slots, (std::vector<int>{2, 3, 3, 3}));
    EXPECT_EQ(max, (std::vector<int>{0, 8, 8, 8}));
}

// what: the one line says it.
void expect_refused(const Options& options, const std::string& what, const AllocateContext& context = {})
{
    Made made;
    allocate(made, options, context);
    ASSERT_FALSE(made.status) << "accepted; expected: " << what;
    EXPECT_NE(made.status.message().find(what), std::string::npos) << made.status.message();
    EXPECT_EQ(made.status.message().find('\n'), std::string::npos) << made.status.message();
    EXPECT_EQ(made.pool.size(), 0u) << "no node is added by a refused allocation";
}

TEST(RasSimulator, BadSettingsAreOneLineNamingTheParameter)
{
    TempDir dir;
    std::string smt = topology_file(dir, "smt.xml", "pack:2 l3:2 core:4 pu:2");
    std::string garbage = dir.write("garbage.xml", "no topology here\n");
    expect_refused({0, "", "", ""}, "ras/simulator has no node to simulate: set ras_simulator_num_nodes");
    expect_refused({2, dir.path("none.xml"), "", ""},
                   "ras_simulator_topo_files: cannot read topology file '" + dir.path("none.xml") +
                       "': No such file or directory");
    expect_refused({2, garbage, "", ""}, "topology file '" + garbage + "' (ras_simulator_topo_files)");
    expect_refused({1, smt + "," + smt, "", ""}, "ras_simulator_topo_files names 2 files for 1 simulated node(s)");
    expect_refused({2, smt, "4,0", ""}, "ras_simulator_slots: '0' is not a count of at least 1");
    expect_refused({2, smt, "four", ""}, "ras_simulator_slots: 'four' is not a count of at least 1");
    expect_refused({2, smt, "1,2,3", ""}, "ras_simulator_slots gives 3 counts for 2 simulated node(s)");
    expect_refused({2, smt, "", "-1"}, "ras_simulator_max_slots: '-1' is not a count of at least 0");
    AllocateContext hosts;
    hosts.hosts = {"n1:2"};
    expect_refused({2, smt, "", ""}, "ras/simulator makes up every node of the DVM (ras_simulator_num_nodes 2): it "
                                     "cannot be combined with --host", hosts);
    AllocateContext hostfile;
    hostfile.hostfile = "/etc/hosts";
    expect_refused({2, smt, "", ""}, "ras/simulator makes up every node of the DVM (ras_simulator_num_nodes 2): it "
                                     "cannot be combined with --hostfile", hostfile);
}

}  // namespace
