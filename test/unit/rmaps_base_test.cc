// The rmaps base: which nodes an app may use (the pool, its --hostfile, its --host list, both),
// the named-host order the seq mapper follows, the one-line errors for bad hostfiles and unknown
// hosts; and, with the build tree's components loaded, that each policy reaches its mapper.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mca/base/param.h"
#include "mca/rmaps/base/rmaps_app_nodes.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "rmaps_test_util.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "temp_dir.h"

namespace prte::rmaps {
namespace {

using runtime::AppContext;
using runtime::Job;
using runtime::MapBy;
using runtime::Node;
using runtime::NodePool;
using runtime::NodeState;
using test::make_app;
using test::make_node;
using test::Names;
using test::placement;

Names names_of(const std::vector<Node*>& nodes)
{
    Names out;
    for (const Node* n : nodes) out.push_back(n->name);
    return out;
}

class AppNodesTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        for (const char* name : {"node1", "node2", "node3", "node4"}) pool.add(make_node(name, 2));
    }

    Status resolve()
    {
        out = {};
        return base::resolve_app_nodes(app, pool, base::node_is_usable, out);
    }

    NodePool pool;
    AppContext app = make_app(0, 1);
    base::AppNodes out;
    prte::test::TempDir dir;
};

TEST_F(AppNodesTest, NothingNamedIsEveryUsableNodeInPoolOrder)
{
    pool.find("node2")->state = NodeState::down;
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node1", "node3", "node4"}));
    EXPECT_TRUE(out.named.empty());
}

TEST_F(AppNodesTest, HostfileRestrictsToItsNodesInItsOrder)
{
    app.hostfile = dir.write("hosts", "# the app's own nodes\nnode3 slots=8\nnode1\nnode3\n");
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node3", "node1"}));
    EXPECT_EQ(names_of(out.named), (Names{"node3", "node1", "node3"}));  // every line, repeats kept
    EXPECT_EQ(pool.find("node3")->slots, 2);  // slot counts in it do not change the pool
}

TEST_F(AppNodesTest, HostfileRangesExpandInOrder)
{
    app.hostfile = dir.write("hosts", "node[3-4]\nnode1\n");
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.named), (Names{"node3", "node4", "node1"}));
}

TEST_F(AppNodesTest, UnusableNodesAreNamedButNotUsable)
{
    pool.find("node1")->state = NodeState::down;
    app.hostfile = dir.write("hosts", "node1\nnode2\n");
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node2"}));
    EXPECT_EQ(names_of(out.named), (Names{"node1", "node2"}));
}

TEST_F(AppNodesTest, HostListGivesTheOrderWithoutAHostfile)
{
    app.hosts = {"node4:2,node2", "node4"};
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node4", "node2"}));
    EXPECT_EQ(names_of(out.named), (Names{"node4", "node2", "node4"}));
}

TEST_F(AppNodesTest, HostfileAndHostListTogetherKeepTheNodesBothName)
{
    app.hostfile = dir.write("hosts", "node1\nnode2\nnode3\nnode2\n");
    app.hosts = {"node3,node2,node4"};
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node2", "node3"}));
    EXPECT_EQ(names_of(out.named), (Names{"node1", "node2", "node3", "node2"}));  // the hostfile's

    app.hosts = {"node4"};
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "app 0 (./a.out) has no usable node to run on: none of the hosts its --host list names "
                            "is a usable node of its hostfile '" + app.hostfile + "'");
}

TEST_F(AppNodesTest, MissingHostfileIsOneLineNamingIt)
{
    app.hostfile = dir.path("nonexistent");
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(), "app 0 (./a.out): cannot read hostfile '" + app.hostfile + "': No such file or directory");
}

TEST_F(AppNodesTest, MalformedHostfileNamesTheLine)
{
    app.hostfile = dir.write("hosts", "node1\nnode2 slots=many\n");
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), "app 0 (./a.out): " + app.hostfile + ":2: 'slots=many': 'many' is not a whole number");
}

TEST_F(AppNodesTest, EmptyHostfileIsAnError)
{
    app.hostfile = dir.write("hosts", "# nothing here\n");
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), "app 0 (./a.out): hostfile '" + app.hostfile + "' lists no hosts");
}

TEST_F(AppNodesTest, HostfileNamesNotInTheDvmAreListedOnce)
{
    app.hostfile = dir.write("hosts", "node1\nnode9\nnodeX\nnode9\n");
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(),
              "app 0 (./a.out) asks for host(s) not in the DVM: node9, nodeX (hostfile '" + app.hostfile + "')");
}

TEST_F(AppNodesTest, HostListNamesNotInTheDvmAndMalformedEntries)
{
    app.hosts = {"node1,node7:2", "node9"};
    Status st = resolve();
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(), "app 0 (./a.out) asks for host(s) not in the DVM: node7, node9");

    app.hosts = {"node1:"};
    st = resolve();
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_EQ(st.message(), "app 0 (./a.out): --host: bad host entry 'node1:': no slot count after ':'");
}

TEST_F(AppNodesTest, AnAliasFindsItsNode)
{
    pool.find("node2")->aliases.push_back("node2.example");
    app.hostfile = dir.write("hosts", "node2.example\n");
    ASSERT_TRUE(resolve());
    EXPECT_EQ(names_of(out.usable), (Names{"node2"}));
}

// --- map_job through the real framework, with every mapper loaded ---

class AllMappersTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        PRTE_REQUIRE_COMPONENT_FILES("mca_rmaps_ppr.so", "mca_rmaps_seq.so", "mca_rmaps_round_robin.so");
        test::open_rmaps(registry_, "ppr,seq,round_robin");
        for (const char* name : {"node1", "node2", "node3"}) {
            Node& n = pool.add(make_node(name, 2));
            test::set_hardware(n, "pack:1 core:2 pu:2");
        }
    }

    void TearDown() override { base::framework().close(); }

    Job& add_job(int num_procs, MapBy by)
    {
        jobs_.push_back(std::make_unique<Job>());
        Job& job = *jobs_.back();
        job.nspace = "job-" + std::to_string(jobs_.size());
        job.mapping.by = by;
        job.apps.push_back(make_app(0, num_procs));
        return job;
    }

    NodePool pool;
    prte::test::TempDir dir;

  private:
    mca::ParamRegistry registry_;
    std::vector<std::unique_ptr<Job>> jobs_;
};

TEST_F(AllMappersTest, SpecificMappersComeBeforeRoundRobin)
{
    const auto& selected = base::framework().selected();
    ASSERT_EQ(selected.size(), 3u);
    EXPECT_STREQ(selected[0].descriptor->name, "ppr");
    EXPECT_EQ(selected[0].priority, 90);
    EXPECT_STREQ(selected[1].descriptor->name, "seq");
    EXPECT_EQ(selected[1].priority, 60);
    EXPECT_STREQ(selected[2].descriptor->name, "round_robin");
}

TEST_F(AllMappersTest, EachPolicyReachesItsMapper)
{
    Job& ppr = add_job(0, MapBy::ppr);
    ppr.mapping.ppr_count = 1;
    ppr.mapping.ppr_object = MapBy::core;
    ASSERT_TRUE(base::map_job(ppr, pool));
    EXPECT_EQ(placement(ppr), (Names{"node1", "node1", "node2", "node2", "node3", "node3"}));
    base::unmap_job(ppr);

    Job& seq = add_job(0, MapBy::seq);
    seq.apps[0].hostfile = dir.write("hosts", "node3\nnode1\nnode3\n");
    ASSERT_TRUE(base::map_job(seq, pool));
    EXPECT_EQ(placement(seq), (Names{"node3", "node1", "node3"}));
    EXPECT_EQ(seq.procs[2]->local_rank, 1);  // the base ranks whatever mapper placed them
    base::unmap_job(seq);

    Job& by_core = add_job(3, MapBy::core);
    ASSERT_TRUE(base::map_job(by_core, pool));
    EXPECT_EQ(placement(by_core), (Names{"node1", "node1", "node2"}));
}

TEST_F(AllMappersTest, HostfileRestrictsEveryPolicy)
{
    std::string hosts = dir.write("hosts", "node3\nnode2\n");
    Job& by_node = add_job(4, MapBy::node);
    by_node.apps[0].hostfile = hosts;
    ASSERT_TRUE(base::map_job(by_node, pool));
    EXPECT_EQ(placement(by_node), (Names{"node3", "node2", "node3", "node2"}));
    base::unmap_job(by_node);

    Job& ppr = add_job(0, MapBy::ppr);
    ppr.mapping.ppr_count = 1;
    ppr.mapping.ppr_object = MapBy::node;
    ppr.apps[0].hostfile = hosts;
    ASSERT_TRUE(base::map_job(ppr, pool));
    EXPECT_EQ(placement(ppr), (Names{"node3", "node2"}));
}

TEST_F(AllMappersTest, SeqNamingAHostNotInTheDvmFailsBeforeAnyMapper)
{
    Job& seq = add_job(0, MapBy::seq);
    seq.apps[0].hostfile = dir.write("hosts", "node1\nnode7\n");
    auto before = test::counters(pool);
    Status st = base::map_job(seq, pool);
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(),
              "app 0 (./a.out) asks for host(s) not in the DVM: node7 (hostfile '" + seq.apps[0].hostfile + "')");
    EXPECT_TRUE(seq.procs.empty());
    EXPECT_EQ(test::counters(pool), before);
}

}  // namespace
}  // namespace prte::rmaps
