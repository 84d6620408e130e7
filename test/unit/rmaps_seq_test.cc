// rmaps/seq on in-memory node pools: rank i on the i-th named host (repeats and order kept), the
// pool order when no host is named, -n smaller or larger than the list, unusable entries, the
// slot rules, and policies not its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/seq/rmaps_seq_module.h"
#include "rmaps_test_util.h"
#include "runtime/job.h"
#include "runtime/node.h"

namespace prte::rmaps {
namespace {

using runtime::Job;
using runtime::MapBy;
using runtime::Node;
using runtime::NodePool;
using runtime::NodeState;
using test::counters;
using test::make_app;
using test::make_node;
using test::Names;
using test::placement;

class SeqTest : public ::testing::Test {
  protected:
    Node& add_node(const std::string& name, int slots = 4, bool slots_given = true)
    {
        return pool.add(make_node(name, slots, slots_given));
    }

    void add_app(int num_procs, const std::string& hostfile = "/tmp/hosts", const std::string& executable = "./a.out")
    {
        job.apps.push_back(make_app(static_cast<int>(job.apps.size()), num_procs, executable));
        job.apps.back().hostfile = hostfile;
    }

    // What map_job builds for apps that name `names` (one list for every app): the usable nodes
    // each once, the named ones in order with repeats.
    MapContext context_naming(const Names& names)
    {
        MapContext context;
        std::vector<Node*> named, usable;
        for (const auto& name : names) {
            Node* n = pool.find(name);
            named.push_back(n);
            if (n->state == NodeState::up && std::find(usable.begin(), usable.end(), n) == usable.end()) {
                usable.push_back(n);
            }
        }
        for (size_t i = 0; i < job.apps.size(); ++i) {
            context.app_nodes.push_back(usable);
            context.app_named_nodes.push_back(named);
        }
        for (const Node* n : usable) context.slots_given = context.slots_given || n->slots_given;
        return context;
    }

    Status map(const MapContext& context)
    {
        job.nspace = "job-1";
        job.mapping.by = MapBy::seq;
        return module.map(job, context);
    }

    NodePool pool;
    Job job;
    seq::SeqModule module;
};

TEST_F(SeqTest, RankIGoesOnTheIthEntryWithRepeatsAndOrderKept)
{
    add_node("node1");
    add_node("node2");
    add_node("node3");
    add_app(0);
    ASSERT_TRUE(map(context_naming({"node3", "node1", "node3", "node2", "node3"})));
    EXPECT_EQ(placement(job), (Names{"node3", "node1", "node3", "node2", "node3"}));
    for (size_t i = 0; i < job.procs.size(); ++i) EXPECT_EQ(job.procs[i]->rank, i);
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{1, 1}, {1, 1}, {3, 3}}));
}

TEST_F(SeqTest, SmallerMinusNTakesTheFirstEntries)
{
    add_node("node1");
    add_node("node2");
    add_app(2);
    ASSERT_TRUE(map(context_naming({"node2", "node2", "node1"})));
    EXPECT_EQ(placement(job), (Names{"node2", "node2"}));
}

TEST_F(SeqTest, LargerMinusNNamesBothCounts)
{
    add_node("node1");
    add_node("node2");
    add_app(4, "/home/u/hosts");
    Status st = map(context_naming({"node2", "node1", "node2"}));
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "--map-by seq for app 0 (./a.out): -n 4 asks for more processes than the 3 entries of "
                            "hostfile '/home/u/hosts' (one process per entry); give at most -n 3, or list more hosts");
    EXPECT_TRUE(job.procs.empty());
}

TEST_F(SeqTest, HostListIsTheListWithoutAHostfile)
{
    add_node("node1");
    add_node("node2");
    add_app(3, "");
    job.apps[0].hosts = {"node2", "node1"};
    Status st = map(context_naming({"node2", "node1"}));
    EXPECT_EQ(st.message(), "--map-by seq for app 0 (./a.out): -n 3 asks for more processes than the 2 entries of its "
                            "--host list (one process per entry); give at most -n 2, or list more hosts");
    job.apps[0].num_procs = 0;
    ASSERT_TRUE(map(context_naming({"node2", "node1"})));
    EXPECT_EQ(placement(job), (Names{"node2", "node1"}));
}

TEST_F(SeqTest, WithoutNamedHostsThePoolOrderIsTheList)
{
    add_node("node1");
    add_node("node2").state = NodeState::down;
    add_node("node3");
    add_app(0, "");
    MapContext context;
    context.app_nodes.push_back({&pool.at(0), &pool.at(2)});  // what the base keeps of the pool
    ASSERT_TRUE(map(context));  // no app_named_nodes at all: a context that names nothing
    EXPECT_EQ(placement(job), (Names{"node1", "node3"}));
    base::unmap_job(job);

    context.app_named_nodes.push_back({});
    job.apps[0].num_procs = 3;
    EXPECT_EQ(map(context).message(), "--map-by seq for app 0 (./a.out): -n 3 asks for more processes than the 2 "
                                      "entries of the DVM's usable nodes (one process per entry); give at most -n 2, "
                                      "or list more hosts");
}

TEST_F(SeqTest, AnEntryTheAppMayNotUseIsAnErrorNotASkip)
{
    add_node("node1");
    add_node("node2").state = NodeState::down;
    add_app(0);
    auto before = counters(pool);
    Status st = map(context_naming({"node1", "node2", "node1"}));
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "--map-by seq for app 0 (./a.out): entry 2 of hostfile '/tmp/hosts' is node2, which the "
                            "app may not use (state down; a node that is departing or outside the app's --host list "
                            "is not usable either)");
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), before);

    job.apps[0].num_procs = 1;  // only the entries that are used must be usable
    ASSERT_TRUE(map(context_naming({"node1", "node2", "node1"})));
    EXPECT_EQ(placement(job), (Names{"node1"}));
}

TEST_F(SeqTest, RepeatsBeyondTheSlotsNeedOversubscription)
{
    add_node("node1", 2);
    add_node("node2", 2);
    add_app(0);
    Status st = map(context_naming({"node1", "node2", "node2", "node2"}));
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "--map-by seq for app 0 (./a.out): node node2 has 2 free slot(s), 3 asked; append "
                            ":OVERSUBSCRIBE to --map-by to oversubscribe");
    EXPECT_TRUE(job.procs.empty());

    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(context_naming({"node1", "node2", "node2", "node2"})));
    EXPECT_EQ(placement(job), (Names{"node1", "node2", "node2", "node2"}));
}

TEST_F(SeqTest, SlotCountsFromTheHardwareAreOversubscribedOnlyWhenAsked)
{
    add_node("node1", 1, /*slots_given=*/false);
    add_app(0);
    EXPECT_EQ(map(context_naming({"node1", "node1", "node1"})).code(), Errc::out_of_resource);
    EXPECT_TRUE(job.procs.empty());

    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(context_naming({"node1", "node1", "node1"})));
    EXPECT_EQ(job.procs.size(), 3u);
}

TEST_F(SeqTest, EachAppFollowsItsOwnListAndRanksContinue)
{
    add_node("node1");
    add_node("node2");
    add_app(0, "/tmp/a", "./a");
    add_app(0, "/tmp/b", "./b");
    MapContext context = context_naming({"node1"});
    context.app_named_nodes[1] = {&pool.at(1), &pool.at(0)};
    context.app_nodes[1] = {&pool.at(1), &pool.at(0)};
    ASSERT_TRUE(map(context));
    EXPECT_EQ(placement(job), (Names{"node1", "node2", "node1"}));
    EXPECT_EQ(job.procs[2]->app_index, 1);
    EXPECT_EQ(job.procs[2]->rank, 2u);
}

TEST_F(SeqTest, PassesOnEveryOtherPolicy)
{
    add_node("node1");
    add_app(1);
    for (MapBy by : {MapBy::unset, MapBy::slot, MapBy::node, MapBy::core, MapBy::package, MapBy::numa,
                     MapBy::hwthread, MapBy::ppr}) {
        job.mapping.by = by;
        EXPECT_EQ(module.map(job, context_naming({"node1"})).code(), Errc::take_next_option) << runtime::to_string(by);
        EXPECT_TRUE(job.procs.empty());
    }
}

TEST_F(SeqTest, VerboseLevelFiveShowsTheOrder)
{
    add_node("node1");
    add_node("node2");
    add_app(0);
    std::string out;
    {
        test::VerboseLevel level(5);
        ::testing::internal::CaptureStderr();
        ASSERT_TRUE(map(context_naming({"node2", "node1", "node2"})));
        out = ::testing::internal::GetCapturedStderr();
    }
    EXPECT_NE(out.find("seq: mapped app 0 (./a.out) from hostfile '/tmp/hosts': ranks 0-2 on node2 node1 node2"),
              std::string::npos)
        << out;
}

}  // namespace
}  // namespace prte::rmaps
