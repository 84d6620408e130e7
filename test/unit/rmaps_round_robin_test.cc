// rmaps/round_robin and the rmaps base, on in-memory node pools.
//
// Most tests call the module directly with a MapContext they build. The base's map_job (candidate
// nodes, rank assignment, unmapping on failure) is tested through the real framework at the end:
// the component's shared object is loaded from the build tree when CTest says where it is
// (PRTE_MCA_mca_base_component_path); a missing file fails them (component_files.h).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mca/base/param.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/round_robin/rmaps_round_robin_module.h"
#include "rmaps_test_util.h"
#include "runtime/job.h"
#include "runtime/node.h"
#include "runtime/runtime.h"
#include "temp_dir.h"

namespace prte::rmaps {
namespace {

using runtime::AppContext;
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
using test::VerboseLevel;

class RoundRobinTest : public ::testing::Test {
  protected:
    Node& add_node(const std::string& name, int slots, bool slots_given = true, int slots_max = 0)
    {
        return pool.add(make_node(name, slots, slots_given, slots_max));
    }

    void add_app(int num_procs, const std::string& executable = "./a.out")
    {
        job.apps.push_back(make_app(static_cast<int>(job.apps.size()), num_procs, executable));
    }

    MapContext context_with_all_nodes() { return test::context_with_all_nodes(job, pool); }

    Status map(MapBy by) { return map(by, context_with_all_nodes()); }
    Status map(MapBy by, const MapContext& context)
    {
        job.mapping.by = by;
        return module.map(job, context);
    }

    NodePool pool;
    Job job;
    round_robin::RoundRobinModule module;
};

// --- by slot ---

TEST_F(RoundRobinTest, BySlotFillsEachNodeInNodeOrder)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_node("node03", 2);
    add_app(5);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02", "node02", "node03"}));
    for (size_t i = 0; i < job.procs.size(); ++i) {
        EXPECT_EQ(job.procs[i]->rank, i);
        EXPECT_EQ(job.procs[i]->app_index, 0);
    }
}

TEST_F(RoundRobinTest, UnsetPolicyMapsBySlot)
{
    add_node("node01", 3);
    add_node("node02", 3);
    add_app(4);
    ASSERT_TRUE(map(MapBy::unset));
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node01", "node02"}));
}

TEST_F(RoundRobinTest, BySlotCountsEachProcessAgainstItsNode)
{
    Node& a = add_node("node01", 2);
    Node& b = add_node("node02", 2);
    add_app(3);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(a.slots_inuse, 2);
    EXPECT_EQ(a.num_procs, 2);
    EXPECT_EQ(b.slots_inuse, 1);
    EXPECT_EQ(b.num_procs, 1);
}

TEST_F(RoundRobinTest, BySlotSkipsNodesWithoutFreeSlots)
{
    add_node("node01", 2).slots_inuse = 2;
    add_node("node02", 1);
    add_node("node03", 2);
    add_app(3);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node02", "node03", "node03"}));
}

// --- by node ---

TEST_F(RoundRobinTest, ByNodePlacesOneProcessPerNodeInTurn)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_node("node03", 2);
    add_app(5);
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node03", "node01", "node02"}));
}

TEST_F(RoundRobinTest, ByNodeSkipsNodesWhoseSlotsAreFull)
{
    add_node("node01", 3);
    add_node("node02", 1);
    add_node("node03", 2);
    add_app(6);
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node03", "node01", "node03", "node01"}));
}

// --- by an object: nodes chosen as by slot; odls binds on the node ---

TEST_F(RoundRobinTest, ByAnObjectFillsNodesInOrderAsBySlot)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_app(3);
    for (MapBy by : {MapBy::core, MapBy::package, MapBy::numa, MapBy::hwthread}) {
        ASSERT_TRUE(map(by)) << runtime::to_string(by);
        EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02"})) << runtime::to_string(by);
        base::unmap_job(job);
    }
}

TEST_F(RoundRobinTest, ByAnObjectKeepsTheSlotRules)
{
    add_node("node01", 1);
    add_app(2);
    Status st = map(MapBy::core);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_NE(st.message().find("not enough slots for app 0 (./a.out): 2 requested, 1 available"), std::string::npos)
        << st.message();
}

TEST_F(RoundRobinTest, ByAnObjectSaysAtLevelTenThatTheBasePlacesInsideNodes)
{
    add_node("node01", 2);
    add_app(1);
    job.nspace = "job-1";
    std::string out;
    {
        VerboseLevel level(10);
        ::testing::internal::CaptureStderr();
        ASSERT_TRUE(map(MapBy::numa));
        out = ::testing::internal::GetCapturedStderr();
    }
    EXPECT_NE(out.find("round_robin: --map-by numa for job job-1: nodes filled in order as by slot; the base gives "
                       "each process a numa of its node"),
              std::string::npos)
        << out;
}

// --- policies that are not ours ---

TEST_F(RoundRobinTest, PassesOnEveryOtherPolicyWithoutTouchingAnything)
{
    add_node("node01", 4);
    add_app(2);
    for (MapBy by : {MapBy::ppr, MapBy::seq, MapBy::rankfile}) {
        Status st = map(by);
        EXPECT_EQ(st.code(), Errc::take_next_option) << runtime::to_string(by);
        EXPECT_TRUE(job.procs.empty()) << runtime::to_string(by);
    }
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{0, 0}}));
}

// --- several apps ---

TEST_F(RoundRobinTest, RanksContinueAcrossAppsAndEachAppUsesItsOwnNodes)
{
    Node& a = add_node("node01", 2);
    Node& b = add_node("node02", 2);
    Node& c = add_node("node03", 2);
    add_app(3, "./first");
    add_app(2, "./second");
    MapContext context = context_with_all_nodes();
    context.app_nodes[1] = {&b, &c};
    ASSERT_TRUE(map(MapBy::slot, context));
    // app 1 sees the slot app 0 left free on node02 before moving on to node03.
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02", "node02", "node03"}));
    std::vector<int> apps;
    for (const auto& p : job.procs) apps.push_back(p->app_index);
    EXPECT_EQ(apps, (std::vector<int>{0, 0, 0, 1, 1}));
    EXPECT_EQ(job.procs.back()->rank, 4u);
    EXPECT_EQ(a.slots_inuse + b.slots_inuse + c.slots_inuse, 5);
}

TEST_F(RoundRobinTest, SecondAppByNodeStartsAgainAtItsFirstNode)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_app(1);
    add_app(2);
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02"}));
}

// --- no -n ---

TEST_F(RoundRobinTest, NoProcessCountMeansOnePerFreeSlot)
{
    add_node("node01", 2);
    add_node("node02", 3).slots_inuse = 1;
    add_app(0);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02", "node02"}));
}

TEST_F(RoundRobinTest, NoProcessCountByNodeAlternates)
{
    add_node("node01", 2);
    add_node("node02", 1);
    add_app(0);
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node01"}));
}

TEST_F(RoundRobinTest, NoProcessCountWithNoFreeSlotIsAnError)
{
    add_node("node01", 2).slots_inuse = 2;
    add_node("node02", 1).slots_inuse = 1;
    add_app(0);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "no free slots for app 0 (./a.out) on node01 (0), node02 (0): without -n it runs one process per free "
              "slot; give -n with --map-by :OVERSUBSCRIBE to oversubscribe the nodes");
    EXPECT_TRUE(job.procs.empty());
}

TEST_F(RoundRobinTest, NoFreeSlotMessageOmitsOversubscribeWhenItIsAllowed)
{
    add_node("node01", 1, /*slots_given=*/false).slots_inuse = 1;
    add_app(0);
    job.mapping.oversubscribe = true;
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "no free slots for app 0 (./a.out) on node01 (0): without -n it runs one process per free slot; give -n "
              "to set a count");
}

// --- slots taken by earlier jobs ---

TEST_F(RoundRobinTest, SlotsInUseByAnEarlierJobAreNotOffered)
{
    add_node("node01", 2).slots_inuse = 1;
    add_node("node02", 2);
    add_app(3);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node02"}));
}

TEST_F(RoundRobinTest, SlotsInUseCountTowardsTheOversubscriptionCheck)
{
    add_node("node01", 2).slots_inuse = 2;
    add_node("node02", 2).slots_inuse = 1;
    add_app(2);
    Status st = map(MapBy::node);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 2 requested, 1 available on node01 (0), node02 (1); add "
              "--map-by :OVERSUBSCRIBE to oversubscribe");
}

// --- oversubscription rules ---

TEST_F(RoundRobinTest, OversubscribingIsForbiddenByDefaultWhenSlotsWereGiven)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_app(6);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 6 requested, 4 available on node01 (2), node02 (2); add "
              "--map-by :OVERSUBSCRIBE to oversubscribe");
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{0, 0}, {0, 0}}));
}

// Slots that came from the hardware are no licence to oversubscribe (issue 14, item 4: a fork
// bomb by default).
TEST_F(RoundRobinTest, OversubscribingIsForbiddenByDefaultWhenSlotsCameFromTheHardware)
{
    add_node("node01", 2, /*slots_given=*/false);
    add_app(100000);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 100000 requested, 2 available on node01 (2); add "
              "--map-by :OVERSUBSCRIBE to oversubscribe");
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST_F(RoundRobinTest, OversubscribingSpreadsTheExtraEvenly)
{
    add_node("node01", 1, /*slots_given=*/false);
    add_node("node02", 1, /*slots_given=*/false);
    add_app(5);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::slot));
    // One each fills the slots; the three extra are spread evenly, and each node's processes
    // keep consecutive ranks.
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node01", "node02", "node02"}));
}

TEST_F(RoundRobinTest, ExplicitOversubscribeOverridesGivenSlots)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_app(6);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node01", "node02", "node01", "node02"}));
}

TEST_F(RoundRobinTest, ExplicitNoOversubscribeForbidsItEvenWithoutGivenSlots)
{
    add_node("node01", 1, /*slots_given=*/false);
    add_node("node02", 1, /*slots_given=*/false);
    add_app(3);
    job.mapping.oversubscribe = false;
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 3 requested, 2 available on node01 (1), node02 (1); "
              "oversubscription is disabled for this job (:NOOVERSUBSCRIBE); request at most 2 process(es) or allow "
              "it with --map-by :OVERSUBSCRIBE");
}

TEST_F(RoundRobinTest, BySlotFillsFreeSlotsFirstThenSpreadsTheExtraEvenly)
{
    add_node("node01", 3);
    add_node("node02", 1);
    add_node("node03", 0);
    add_app(8);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::slot));
    // 4 free slots (3 + 1 + 0); the other 4 go one per node in turn: node01, node02, node03, node01.
    EXPECT_EQ(placement(job),
              (Names{"node01", "node01", "node01", "node01", "node01", "node02", "node02", "node03"}));
}

TEST_F(RoundRobinTest, ByNodeOversubscribingContinuesTheTurnWhereItStopped)
{
    add_node("node01", 2);
    add_node("node02", 1);
    add_app(4);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::node));
    // The free slots go node01, node02, node01; the first extra goes to node02, next in the turn.
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node01", "node02"}));
}

TEST_F(RoundRobinTest, OversubscribedCountersGoBeyondTheSlots)
{
    Node& n = add_node("node01", 1, /*slots_given=*/false);
    add_app(3);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(n.slots_inuse, 3);
    EXPECT_EQ(n.available_slots(), 0);
}

// --- hard limits (slots_max) ---

TEST_F(RoundRobinTest, OversubscribingStopsAtEachNodesHardLimit)
{
    add_node("node01", 1, /*slots_given=*/false, /*slots_max=*/2);
    add_node("node02", 1, /*slots_given=*/false);
    add_app(5);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node01", "node02", "node02"}));
}

TEST_F(RoundRobinTest, BySlotSpreadSkipsNodesAtTheirHardLimit)
{
    add_node("node01", 1, /*slots_given=*/false, /*slots_max=*/1);
    add_node("node02", 1, /*slots_given=*/false, /*slots_max=*/4);
    add_app(4);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node02", "node02"}));
}

TEST_F(RoundRobinTest, EveryNodeAtItsHardLimitIsAnError)
{
    add_node("node01", 2, /*slots_given=*/false, /*slots_max=*/3);
    add_node("node02", 2, /*slots_given=*/false, /*slots_max=*/3).slots_inuse = 1;
    add_app(6);
    job.mapping.oversubscribe = true;
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 6 requested, at most 5 can be placed even oversubscribing, "
              "because of the nodes' hard limits (max_slots) on node01 (3), node02 (2); raise max_slots or request "
              "fewer processes");
    EXPECT_TRUE(job.procs.empty());
}

TEST_F(RoundRobinTest, ExactlyReachingTheHardLimitsSucceeds)
{
    add_node("node01", 2, /*slots_given=*/false, /*slots_max=*/3);
    add_node("node02", 2, /*slots_given=*/false, /*slots_max=*/3).slots_inuse = 1;
    add_app(5);
    job.mapping.oversubscribe = true;
    ASSERT_TRUE(map(MapBy::node));
    EXPECT_EQ(placement(job), (Names{"node01", "node02", "node01", "node02", "node01"}));
}

TEST_F(RoundRobinTest, HardLimitBelowTheSlotCountCapsTheFreeSlots)
{
    add_node("node01", 4, /*slots_given=*/true, /*slots_max=*/2);
    add_node("node02", 4);
    add_app(3);
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(placement(job), (Names{"node01", "node01", "node02"}));
}

// --- messages stay one readable line ---

TEST_F(RoundRobinTest, LongNodeListsAreShortenedInMessages)
{
    for (int i = 1; i <= 10; ++i) add_node(fmt::format("n{:02}", i), 1);
    add_app(11);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.message(),
              "not enough slots for app 0 (./a.out): 11 requested, 10 available on n01 (1), n02 (1), n03 (1), n04 (1), "
              "n05 (1), n06 (1), n07 (1), n08 (1) and 2 more node(s); add --map-by :OVERSUBSCRIBE to oversubscribe");
}

// --- bad input ---

TEST_F(RoundRobinTest, AppWithoutCandidateNodesIsAnError)
{
    add_node("node01", 2);
    add_app(1);
    MapContext context = context_with_all_nodes();
    context.app_nodes[0].clear();
    Status st = map(MapBy::slot, context);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "app 0 (./a.out) has no usable node to run on");
}

TEST_F(RoundRobinTest, ContextMissingAnAppsNodeListIsAnInternalError)
{
    add_node("node01", 2);
    add_app(1);
    add_app(1, "./b.out");
    job.nspace = "job-1";
    MapContext context = context_with_all_nodes();
    context.app_nodes.pop_back();
    Status st = map(MapBy::slot, context);
    EXPECT_EQ(st.code(), Errc::internal);
    EXPECT_EQ(st.message(), "no candidate node list for app 1 (./b.out) of job job-1");
}

TEST_F(RoundRobinTest, NegativeProcessCountIsRejected)
{
    add_node("node01", 2);
    add_app(-2);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_EQ(st.message(), "app 0 (./a.out) asks for -2 processes; give -n a positive count");
}

// --- a failure part-way ---

TEST_F(RoundRobinTest, FailureInALaterAppIsUndoneByUnmapJob)
{
    add_node("node01", 2);
    add_node("node02", 2);
    add_app(3);
    add_app(2, "./b.out");
    auto before = counters(pool);
    Status st = map(MapBy::slot);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 1 (./b.out): 2 requested, 1 available on node01 (0), node02 (1); add "
              "--map-by :OVERSUBSCRIBE to oversubscribe");
    // The module leaves app 0's processes for the base to undo (map_job calls unmap_job).
    EXPECT_EQ(job.procs.size(), 3u);
    base::unmap_job(job);
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), before);
}

// --- the verbose stream ---

TEST_F(RoundRobinTest, VerboseLevelFiveSaysWhatWentWhere)
{
    add_node("node01", 1);
    add_node("node02", 1);
    add_app(3);
    job.mapping.oversubscribe = true;
    std::string out;
    {
        VerboseLevel level(5);
        ::testing::internal::CaptureStderr();
        ASSERT_TRUE(map(MapBy::slot));
        out = ::testing::internal::GetCapturedStderr();
    }
    EXPECT_NE(out.find("rmaps: round_robin: mapped app 0 (./a.out) by slot: ranks 0-2 on node01 x2 (1 over its "
                       "slots), node02 x1\n"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("may use"), std::string::npos) << "level 10 line at level 5: " << out;
}

TEST_F(RoundRobinTest, VerboseLevelTenShowsTheCandidatesAndTheDecision)
{
    add_node("node01", 1, /*slots_given=*/false);
    add_app(2);
    job.mapping.oversubscribe = true;
    std::string out;
    {
        VerboseLevel level(10);
        ::testing::internal::CaptureStderr();
        ASSERT_TRUE(map(MapBy::node));
        EXPECT_EQ(map(MapBy::ppr).code(), Errc::take_next_option);
        out = ::testing::internal::GetCapturedStderr();
    }
    EXPECT_NE(out.find("round_robin: app 0 (./a.out) may use (free slots) node01 (1)"), std::string::npos) << out;
    EXPECT_NE(out.find("round_robin: app 0 (./a.out) oversubscribes: 2 requested, 1 free slot(s)"), std::string::npos)
        << out;
    EXPECT_NE(out.find("round_robin: --map-by ppr is not mine"), std::string::npos) << out;
}

TEST_F(RoundRobinTest, SilentByDefault)
{
    add_node("node01", 1);
    add_app(1);
    ::testing::internal::CaptureStderr();
    ASSERT_TRUE(map(MapBy::slot));
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// --- base functions used by every mapper ---

TEST(RmapsBaseTest, ClaimSlotNumbersProcessesAndCountsThemOnTheNode)
{
    Node node = make_node("node01", 2);
    Job job;
    runtime::Proc& first = base::claim_slot(job, node, 0);
    runtime::Proc& second = base::claim_slot(job, node, 1);
    EXPECT_EQ(first.rank, 0u);
    EXPECT_EQ(second.rank, 1u);
    EXPECT_EQ(second.app_index, 1);
    EXPECT_EQ(second.node, &node);
    EXPECT_EQ(node.slots_inuse, 2);
    EXPECT_EQ(node.num_procs, 2);
}

TEST(RmapsBaseTest, UnmapJobRestoresTheNodesAndForgetsTheProcesses)
{
    Node a = make_node("node01", 2);
    Node b = make_node("node02", 2);
    a.slots_inuse = a.num_procs = 1;  // another job's process stays counted
    Job job;
    base::claim_slot(job, a, 0);
    base::claim_slot(job, b, 0);
    job.num_launched = 2;
    base::unmap_job(job);
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(job.num_launched, 0);
    EXPECT_EQ(a.slots_inuse, 1);
    EXPECT_EQ(a.num_procs, 1);
    EXPECT_EQ(b.slots_inuse, 0);
    EXPECT_EQ(b.num_procs, 0);
}

// map_job checks the apps' --host lists before any mapper is asked, so these need no component.
TEST(RmapsBaseTest, MapJobNamesHostsThatAreNotInTheDvm)
{
    NodePool pool;
    pool.add(make_node("node01", 2));
    Job job;
    job.apps.push_back(make_app(0, 1));
    job.apps[0].hosts = {"node01", "node07:2", "node09"};
    Status st = base::map_job(job, pool);
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(), "app 0 (./a.out) asks for host(s) not in the DVM: node07, node09");
}

TEST(RmapsBaseTest, MapJobRefusesAnAppWhoseNodesAreAllUnusable)
{
    NodePool pool;
    pool.add(make_node("node01", 2)).state = NodeState::down;
    pool.add(make_node("node02", 2));
    Job job;
    job.apps.push_back(make_app(0, 1));
    job.apps[0].hosts = {"node01"};
    Status st = base::map_job(job, pool);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(), "app 0 (./a.out) has no usable node to run on");
}

// --- map_job through the real framework, with the built component loaded ---

class MapJobTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        PRTE_REQUIRE_COMPONENT_FILES("mca_rmaps_round_robin.so");
        test::open_rmaps(registry_, "round_robin");
        ASSERT_EQ(base::modules().size(), 1u);
        ASSERT_STREQ(base::framework().selected()[0].descriptor->name, "round_robin");
        EXPECT_EQ(base::framework().selected()[0].priority, 10);
    }

    void TearDown() override { base::framework().close(); }

    Job& add_job(const std::string& nspace, int num_procs, MapBy by = MapBy::slot)
    {
        jobs_.push_back(std::make_unique<Job>());
        Job& job = *jobs_.back();
        job.nspace = nspace;
        job.mapping.by = by;
        job.apps.push_back(make_app(0, num_procs));
        return job;
    }

    NodePool pool;

  private:
    mca::ParamRegistry registry_;
    std::vector<std::unique_ptr<Job>> jobs_;
};

TEST_F(MapJobTest, LocalAndNodeRanksCountOtherJobsOnTheNode)
{
    pool.add(make_node("node01", 4));
    pool.add(make_node("node02", 4));
    Job& earlier = add_job("job-1", 1);
    ASSERT_TRUE(base::map_job(earlier, pool));
    Job& job = add_job("job-2", 4, MapBy::node);
    ASSERT_TRUE(base::map_job(job, pool));
    ASSERT_EQ(placement(job), (Names{"node01", "node02", "node01", "node02"}));
    std::vector<int> local, node;
    for (const auto& p : job.procs) {
        local.push_back(p->local_rank);
        node.push_back(p->node_rank);
    }
    EXPECT_EQ(local, (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(node, (std::vector<int>{1, 0, 2, 1}));  // node01 already runs job-1's rank 0
    EXPECT_EQ(earlier.procs[0]->node_rank, 0);
}

TEST_F(MapJobTest, HostListRestrictsTheAppToThoseNodes)
{
    pool.add(make_node("node01", 2));
    pool.add(make_node("node02", 2));
    pool.add(make_node("node03", 2));
    Job& job = add_job("job-1", 3);
    job.apps[0].hosts = {"node03", "node02"};
    ASSERT_TRUE(base::map_job(job, pool));
    EXPECT_EQ(placement(job), (Names{"node03", "node03", "node02"}));  // in --host order
}

// "--host node03:1": the app uses at most 1 slot there (PRRTE's hosts doc), the rest goes on; the
// node's own count is the DVM's and stays (issue 41 item 3).
TEST_F(MapJobTest, HostCountCapsTheAppOnThatNode)
{
    pool.add(make_node("node02", 2));
    pool.add(make_node("node03", 2));
    Job& job = add_job("job-1", 3);
    job.apps[0].hosts = {"node03:1", "node02"};
    ASSERT_TRUE(base::map_job(job, pool));
    EXPECT_EQ(placement(job), (Names{"node03", "node02", "node02"}));
    EXPECT_EQ(pool.find("node03")->slots, 2);

    Job& capped = add_job("job-2", 2);
    capped.apps[0].hosts = {"node03:1"};
    Status st = base::map_job(capped, pool);
    ASSERT_FALSE(st);
    EXPECT_NE(st.message().find("not enough slots"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("node03 (1, --host node03:1)"), std::string::npos) << st.message();
}

// prun --host localhost means the master's node, whatever the DVM calls it (issue 14, item 8).
TEST_F(MapJobTest, LocalhostIsTheMastersNode)
{
    pool.add(make_node("node01", 2));
    pool.add(make_node("node02", 2));
    std::string& master_node = runtime::Runtime::instance().identity().node_name;
    std::string saved = master_node;
    master_node = "node02";
    Job& job = add_job("job-1", 2);
    job.apps[0].hosts = {"localhost"};
    Status st = base::map_job(job, pool);
    master_node = saved;
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(placement(job), (Names{"node02", "node02"}));
}

TEST_F(MapJobTest, NodesTheFilterRejectsAreNotUsed)
{
    pool.add(make_node("node01", 2)).state = NodeState::down;
    pool.add(make_node("node02", 2));
    Job& job = add_job("job-1", 2);
    ASSERT_TRUE(base::map_job(job, pool));
    EXPECT_EQ(placement(job), (Names{"node02", "node02"}));
}

TEST_F(MapJobTest, FailedMapLeavesNodeCountersUnchanged)
{
    pool.add(make_node("node01", 2)).slots_inuse = 1;
    pool.add(make_node("node02", 2));
    Job& job = add_job("job-1", 2);
    job.apps.push_back(make_app(1, 2, "./b.out"));
    auto before = counters(pool);
    Status st = base::map_job(job, pool);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_EQ(st.message(),
              "not enough slots for app 1 (./b.out): 2 requested, 1 available on node01 (0), node02 (1); add "
              "--map-by :OVERSUBSCRIBE to oversubscribe");
    EXPECT_TRUE(job.procs.empty());
    EXPECT_EQ(counters(pool), before);
}

// Whether the count was given or came from the hardware, more processes than slots need
// :OVERSUBSCRIBE (issue 14, item 4).
TEST_F(MapJobTest, SlotsFromTheHardwareAreNotOversubscribedUnlessAsked)
{
    pool.add(make_node("node01", 1, /*slots_given=*/false));
    Job& refused = add_job("job-1", 3);
    Status st = base::map_job(refused, pool);
    EXPECT_EQ(st.code(), Errc::out_of_resource);
    EXPECT_NE(st.message().find("add --map-by :OVERSUBSCRIBE to oversubscribe"), std::string::npos) << st.message();

    Job& asked = add_job("job-2", 3);
    asked.mapping.oversubscribe = true;
    ASSERT_TRUE(base::map_job(asked, pool));
    EXPECT_EQ(asked.procs.size(), 3u);
}

TEST_F(MapJobTest, MappingAgainReleasesTheFirstMapping)
{
    Node& n = pool.add(make_node("node01", 4));
    Job& job = add_job("job-1", 3);
    ASSERT_TRUE(base::map_job(job, pool));
    ASSERT_TRUE(base::map_job(job, pool));
    EXPECT_EQ(job.procs.size(), 3u);
    EXPECT_EQ(n.slots_inuse, 3);
    EXPECT_EQ(n.num_procs, 3);
}

TEST_F(MapJobTest, PolicyNoMapperHandlesIsNotSupported)
{
    pool.add(make_node("node01", 4));
    Job& job = add_job("job-1", 2, MapBy::ppr);
    Status st = base::map_job(job, pool);
    EXPECT_EQ(st.code(), Errc::not_supported);
    EXPECT_EQ(st.message(), "no mapper can handle --map-by ppr for job job-1");
    EXPECT_TRUE(job.procs.empty());
}

}  // namespace
}  // namespace prte::rmaps
