// rmaps/ppr on in-memory node pools: N per node and per object (from each node's topology), -n
// taking the first n in ppr order, the slot rules, unknown topologies, and policies not its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/ppr/rmaps_ppr_module.h"
#include "rmaps_test_util.h"
#include "runtime/job.h"
#include "runtime/node.h"

namespace prte::rmaps {
namespace {

using runtime::Job;
using runtime::MapBy;
using runtime::Node;
using runtime::NodePool;
using test::counters;
using test::make_app;
using test::make_node;
using test::Names;
using test::placement;

class PprTest : public ::testing::Test {
  protected:
    // A node with 2 packages, 2 NUMA domains, 4 cores and 8 hwthreads unless told otherwise (hwloc's
    // synthetic description).
    Node& add_node(const std::string& name, int slots, bool slots_given = true,
                   const std::string& hardware = "pack:2 numa:1 core:2 pu:2")
    {
        Node& n = pool.add(make_node(name, slots, slots_given));
        test::set_hardware(n, hardware);
        return n;
    }

    void add_app(int num_procs, const std::string& executable = "./a.out")
    {
        job.apps.push_back(make_app(static_cast<int>(job.apps.size()), num_procs, executable));
    }

    MapContext context_with_all_nodes() { return test::context_with_all_nodes(job, pool); }

    Status map(int count, MapBy object) { return map(count, object, context_with_all_nodes()); }
    Status map(int count, MapBy object, const MapContext& context)
    {
        job.nspace = "job-1";
        job.mapping.by = MapBy::ppr;
        job.mapping.ppr_count = count;
        job.mapping.ppr_object = object;
        return module.map(job, context);
    }

    NodePool pool;
    Job job;
    ppr::PprModule module;
};

TEST_F(PprTest, PerNodePlacesNOnEveryNodeWithConsecutiveRanks)
{
    add_node("node1", 4);
    add_node("node2", 4);
    add_node("node3", 4);
    add_app(0);
    ASSERT_TRUE(map(2, MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node1", "node1", "node2", "node2", "node3", "node3"}));
    for (size_t i = 0; i < job.procs.size(); ++i) EXPECT_EQ(job.procs[i]->rank, i);
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{2, 2}, {2, 2}, {2, 2}}));
}

TEST_F(PprTest, PerObjectMultipliesByTheNodesCountOfIt)
{
    add_node("node1", 64);
    add_node("node2", 64, true, "pack:1 numa:2 core:1 pu:1");
    add_app(0);
    struct Case {
        MapBy object;
        size_t on_node1, on_node2;
    };
    for (Case c : {Case{MapBy::package, 2, 1}, Case{MapBy::numa, 2, 2}, Case{MapBy::core, 4, 2},
                   Case{MapBy::hwthread, 8, 2}}) {
        ASSERT_TRUE(map(1, c.object)) << runtime::to_string(c.object);
        Names expected(c.on_node1, "node1");
        expected.insert(expected.end(), c.on_node2, "node2");
        EXPECT_EQ(placement(job), expected) << runtime::to_string(c.object);
        base::unmap_job(job);
    }
    ASSERT_TRUE(map(3, MapBy::package));
    EXPECT_EQ(job.procs.size(), 9u);  // 3 x 2 packages + 3 x 1
}

TEST_F(PprTest, MinusNTakesTheFirstNInPprOrder)
{
    add_node("node1", 4);
    add_node("node2", 4);
    add_node("node3", 4);
    add_app(3);
    ASSERT_TRUE(map(2, MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node1", "node1", "node2"}));
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{2, 2}, {1, 1}, {0, 0}}));
}

TEST_F(PprTest, MinusNBeyondWhatPprPlacesNamesBothNumbers)
{
    add_node("node1", 4);
    add_node("node2", 4);
    add_app(5);
    Status st = map(2, MapBy::node);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "ppr:2:node for app 0 (./a.out): -n 5 asks for more processes than the 4 it places on 2 "
                            "node(s); give at most -n 4, or leave -n out");
    EXPECT_TRUE(job.procs.empty());
}

TEST_F(PprTest, NotEnoughSlotsWhenGivenNamesTheNode)
{
    add_node("node1", 2);
    add_node("node2", 1);
    add_app(0);
    auto before = counters(pool);
    Status st = map(2, MapBy::node);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "ppr:2:node for app 0 (./a.out): node node2 has 1 free slot(s), 2 asked; append "
                            ":OVERSUBSCRIBE to --map-by to oversubscribe");
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), before);
}

TEST_F(PprTest, OversubscribesOnlyWhenAsked)
{
    add_node("node1", 1, /*slots_given=*/false);
    add_app(0);
    // Slots from the hardware are not a licence to oversubscribe.
    Status refused = map(3, MapBy::node);
    EXPECT_EQ(refused.code(), Errc::out_of_resource);
    EXPECT_EQ(refused.message(), "ppr:3:node for app 0 (./a.out): node node1 has 1 free slot(s), 3 asked; append "
                                 ":OVERSUBSCRIBE to --map-by to oversubscribe");

    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(3, MapBy::node));
    EXPECT_EQ(job.procs.size(), 3u);
    base::unmap_job(job);

    pool.at(0).slots_given = true;
    ASSERT_TRUE(map(3, MapBy::node));
    EXPECT_EQ(job.procs.size(), 3u);
    base::unmap_job(job);

    pool.at(0).slots_given = false;
    job.mapping.oversubscribe = false;  // explicit :NOOVERSUBSCRIBE
    Status st = map(3, MapBy::node);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "ppr:3:node for app 0 (./a.out): node node1 has 1 free slot(s), 3 asked; oversubscription "
                            "is disabled for this job (:NOOVERSUBSCRIBE)");
}

TEST_F(PprTest, NeverBeyondAHardLimit)
{
    add_node("node1", 1).slots_max = 2;
    add_app(0);
    job.mapping.oversubscribe = true;
    Status st = map(3, MapBy::node);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "ppr:3:node for app 0 (./a.out): node node1 can take at most 2 more process(es) even "
                            "oversubscribing (max_slots=2), 3 asked; raise max_slots or request fewer processes");
}

TEST_F(PprTest, SlotsOtherJobsHoldCount)
{
    add_node("node1", 4).slots_inuse = 3;
    add_app(0);
    EXPECT_EQ(map(2, MapBy::node).message(), "ppr:2:node for app 0 (./a.out): node node1 has 1 free slot(s), 2 "
                                             "asked; append :OVERSUBSCRIBE to --map-by to oversubscribe");
}

TEST_F(PprTest, UnknownTopologyIsSaidClearly)
{
    add_node("node1", 8);
    Node& unknown = pool.add(make_node("node2", 8, true));  // its daemon has not reported
    ASSERT_FALSE(unknown.hw);
    add_app(0);
    Status st = map(1, MapBy::core);
    EXPECT_EQ(st.code(), Errc::not_supported);
    EXPECT_EQ(st.message(), "ppr:1:core for app 0 (./a.out): node node2 has no cores (its topology is unknown, or "
                            "hwloc finds none there), so processes cannot be placed per core there; use ppr:1:node");
    EXPECT_TRUE(job.procs.empty());
    ASSERT_TRUE(map(1, MapBy::node));  // per node needs no topology
    EXPECT_EQ(placement(job), (Names{"node1", "node2"}));
}

TEST_F(PprTest, EachAppUsesItsOwnNodesAndRanksContinue)
{
    add_node("node1", 4);
    add_node("node2", 4);
    add_node("node3", 4);
    add_app(0, "./a");
    add_app(0, "./b");
    MapContext context = context_with_all_nodes();
    context.app_nodes[0] = {&pool.at(2)};
    context.app_nodes[1] = {&pool.at(0), &pool.at(1)};
    ASSERT_TRUE(map(1, MapBy::node, context));
    EXPECT_EQ(placement(job), (Names{"node3", "node1", "node2"}));
    EXPECT_EQ(job.procs[0]->app_index, 0);
    EXPECT_EQ(job.procs[1]->app_index, 1);
    EXPECT_EQ(job.procs[2]->rank, 2u);
}

TEST_F(PprTest, SecondAppThatFailsIsReportedWithItsName)
{
    add_node("node1", 2);
    add_app(0, "./a");
    add_app(0, "./b");
    Status st = map(2, MapBy::node);  // the first app takes both slots
    EXPECT_EQ(st.message(), "ppr:2:node for app 1 (./b): node node1 has 0 free slot(s), 2 asked; append "
                            ":OVERSUBSCRIBE to --map-by to oversubscribe");
}

TEST_F(PprTest, PassesOnEveryOtherPolicy)
{
    add_node("node1", 4);
    add_app(2);
    for (MapBy by : {MapBy::unset, MapBy::slot, MapBy::node, MapBy::core, MapBy::package, MapBy::numa,
                     MapBy::hwthread, MapBy::seq}) {
        job.mapping.by = by;
        EXPECT_EQ(module.map(job, context_with_all_nodes()).code(), Errc::take_next_option)
            << runtime::to_string(by);
        EXPECT_TRUE(job.procs.empty());
    }
}

TEST_F(PprTest, RefusesAPolicyWithoutACountOrAnObject)
{
    add_node("node1", 4);
    add_app(1);
    EXPECT_EQ(map(0, MapBy::node).code(), Errc::bad_param);
    Status st = map(1, MapBy::slot);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_EQ(st.message(), "job job-1: --map-by ppr:1:slot is not a valid ppr policy (ppr:N:<object>, N positive, the "
                            "object node, package, numa, l3cache, l2cache, l1cache, core or hwthread)");
}

TEST_F(PprTest, VerboseSaysWhatWentWhere)
{
    add_node("node1", 4);
    add_node("node2", 4);
    add_app(3);
    std::string out;
    {
        test::VerboseLevel level(10);
        ::testing::internal::CaptureStderr();
        ASSERT_TRUE(map(2, MapBy::node));
        out = ::testing::internal::GetCapturedStderr();
    }
    EXPECT_NE(out.find("ppr: ppr:2:node places 4 process(es) for app 0 (./a.out): node1 x2, node2 x2"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("ppr: mapped app 0 (./a.out) by ppr:2:node: ranks 0-2 on node1 x2, node2 x1"),
              std::string::npos)
        << out;
}

}  // namespace
}  // namespace prte::rmaps
