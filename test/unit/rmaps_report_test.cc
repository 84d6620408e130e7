// The text of prun --display allocation and --display map (rmaps/base/rmaps_report.h): every usable
// node with its slots; the job's policies and, per node in the pool's order, its ranks there.
#include <gtest/gtest.h>

#include <string>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_report.h"
#include "rmaps_test_util.h"

namespace {

using prte::rmaps::test::make_node;

size_t count(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(RmapsReport, AllocationListsUsableNodesWithTheirSlots)
{
    prte::runtime::NodePool pool;
    pool.add(make_node("alpha", 4, true, 6)).slots_inuse = 1;
    pool.add(make_node("beta", 2));
    pool.add(make_node("gone", 8)).state = prte::runtime::NodeState::down;
    std::string text = prte::rmaps::base::allocation_report(pool);
    EXPECT_EQ(text.rfind("======================   ALLOCATED NODES   ======================\n", 0), 0u) << text;
    EXPECT_NE(text.find("    alpha: slots=4 max_slots=6 slots_inuse=1 state=UP\n"), std::string::npos) << text;
    EXPECT_NE(text.find("    beta: slots=2 max_slots=0 slots_inuse=0 state=UP\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("gone"), std::string::npos) << "a node that is down is no part of the allocation: " << text;
    EXPECT_EQ(text.back(), '\n');
}

TEST(RmapsReport, MapShowsPoliciesAndEachNodesRanksInPoolOrder)
{
    prte::runtime::NodePool pool;
    pool.add(make_node("n1", 2));
    pool.add(make_node("n2", 2));
    pool.add(make_node("unused", 2));
    prte::runtime::Job job;
    job.nspace = "prte-host-1@3";
    job.mapping.by = prte::runtime::MapBy::ppr;
    job.mapping.ppr_count = 1;
    job.mapping.ppr_object = prte::runtime::MapBy::node;
    job.mapping.bind_to = prte::runtime::BindTo::core;
    job.mapping.oversubscribe = false;
    // Ranks 0 and 2 on n2, rank 1 on n1: each node lists its own, in rank order.
    prte::rmaps::base::claim_slot(job, *pool.find("n2"), 0);
    prte::rmaps::base::claim_slot(job, *pool.find("n1"), 0);
    prte::rmaps::base::claim_slot(job, *pool.find("n2"), 1);

    std::string text = prte::rmaps::base::map_report(job, pool);
    EXPECT_EQ(text.rfind("========================   JOB MAP   ========================\n", 0), 0u) << text;
    EXPECT_NE(text.find("Data for JOB prte-host-1@3 Total slots allocated 6\n"), std::string::npos) << text;
    EXPECT_NE(text.find("Mapping policy: PPR:1:NODE:NOOVERSUBSCRIBE  Ranking policy: AS MAPPED  Binding policy: CORE\n"), std::string::npos)
        << text;
    size_t n1 = text.find("Data for node: n1\tNum slots: 2\tMax slots: 0\tNum procs: 1\n");
    size_t n2 = text.find("Data for node: n2\tNum slots: 2\tMax slots: 0\tNum procs: 2\n");
    ASSERT_NE(n1, std::string::npos) << text;
    ASSERT_NE(n2, std::string::npos) << text;
    EXPECT_LT(n1, n2) << "nodes in the pool's order";
    size_t rank0 = text.find("App: 0 Process rank: 0 ");
    size_t rank1 = text.find("App: 0 Process rank: 1 ");
    size_t rank2 = text.find("App: 1 Process rank: 2 ");
    EXPECT_TRUE(n1 < rank1 && rank1 < n2) << text;
    EXPECT_TRUE(n2 < rank0 && rank0 < rank2) << text;
    EXPECT_EQ(text.find("unused"), std::string::npos) << "a node with none of the job's ranks is left out";
    EXPECT_EQ(count(text, "Process jobid: prte-host-1@3 "), 3u);

    EXPECT_EQ(text.find("Bound:"), std::string::npos) << "no binding is shown while placement binds nothing";

    job.mapping = {};
    text = prte::rmaps::base::map_report(job, pool);
    EXPECT_NE(text.find("Mapping policy: DEFAULT  Ranking policy: AS MAPPED  Binding policy: CORE (DEFAULT)\n"), std::string::npos) << text;
}

// Once placement has bound a process (rmaps/base fills Proc::binding at map time), its line says where.
TEST(RmapsReport, MapShowsEachBoundRanksBinding)
{
    prte::runtime::NodePool pool;
    pool.add(make_node("n1", 2));
    prte::runtime::Job job;
    job.nspace = "prte-host-1@4";
    auto& bound = prte::rmaps::base::claim_slot(job, *pool.find("n1"), 0);
    bound.cpuset = "2-3";
    bound.binding = "core 1 (cpus 2-3)";
    prte::rmaps::base::claim_slot(job, *pool.find("n1"), 0);
    // Left unbound on purpose (a node sharing its machine's CPUs): no CPUs, and the reason in words.
    prte::rmaps::base::claim_slot(job, *pool.find("n1"), 0).binding = "node n1 shares its machine's CPUs";
    std::string text = prte::rmaps::base::map_report(job, pool);
    EXPECT_NE(text.find("App: 0 Process rank: 0 Local rank: 0 Bound: core 1 (cpus 2-3)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("App: 0 Process rank: 1 Local rank: 0\n"), std::string::npos) << "an unbound rank: " << text;
    EXPECT_NE(text.find("App: 0 Process rank: 2 Local rank: 0 Not bound: node n1 shares its machine's CPUs\n"),
              std::string::npos)
        << "a rank left unbound with a reason: " << text;
}

// --display topo: each node's hwloc tree as the master holds it, every node or the ones named; a
// name the DVM does not know and a node without a topology yet each get a line saying so.
TEST(RmapsReport, TopologyShowsEachNodesTreeOrWhyNot)
{
    prte::runtime::NodePool pool;
    prte::rmaps::test::set_hardware(pool.add(make_node("n1", 4)), "pack:2 l3:1 core:2 pu:2");
    pool.add(make_node("n2", 2));
    prte::runtime::Job job;
    job.reports.topology = true;
    std::string text = prte::rmaps::base::topology_report(job, pool);
    EXPECT_NE(text.find("TOPOLOGY FOR NODE n1: 2 package(s), 1 NUMA domain(s), 4 core(s), 8 hwthread(s)\n"),
              std::string::npos) << text;
    EXPECT_NE(text.find("\nMachine L#0 cpus 0-7\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n  Package L#1 cpus 4-7\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n        PU L#7 (P#7)\n"), std::string::npos) << "PUs under their core: " << text;
    EXPECT_NE(text.find("TOPOLOGY FOR NODE n2: not known yet"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n');

    job.reports.topology_hosts = {"n2", "nosuch"};
    text = prte::rmaps::base::topology_report(job, pool);
    EXPECT_EQ(text.find("NODE n1"), std::string::npos) << "only the nodes named: " << text;
    EXPECT_LT(text.find("NODE n2"), text.find("TOPOLOGY FOR NODE nosuch: no such node in the DVM\n")) << text;
}

// --display cpus: per node, each package's CPUs a process may be bound to, as PRRTE lays it out:
// cores by logical index, hwthreads with HWTCPUS; the nodes named, or every usable node.
TEST(RmapsReport, CpusShowsEachPackagesAvailableCpus)
{
    prte::runtime::NodePool pool;
    prte::rmaps::test::set_hardware(pool.add(make_node("n1", 4)), "pack:2 core:3 pu:2");
    pool.add(make_node("n2", 2));
    prte::runtime::Job job;
    job.reports.cpus = true;
    std::string text = prte::rmaps::base::cpus_report(job, pool);
    EXPECT_EQ(text.rfind("\n======================   AVAILABLE PROCESSORS [node: n1]   ======================\n\n"
                         "PKG[0]: 0-2\nPKG[1]: 3-5\n\n"
                         "======================================================================\n",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("[node: n2]   ======================\n\nnot known yet"), std::string::npos) << text;

    job.mapping.hwtcpus = true;
    job.reports.cpus_hosts = {"n1", "nosuch"};
    text = prte::rmaps::base::cpus_report(job, pool);
    EXPECT_NE(text.find("PKG[0]: 0-5\nPKG[1]: 6-11\n"), std::string::npos) << "hwthreads with HWTCPUS: " << text;
    EXPECT_EQ(text.find("n2"), std::string::npos) << "only the nodes named: " << text;
    EXPECT_NE(text.find("[node: nosuch]   ======================\n\nno such node in the DVM\n"), std::string::npos) << text;
}

// An MPMD app with its own --map-by shows it under the job's policies.
TEST(RmapsReport, MapShowsAnAppsOwnPolicy)
{
    prte::runtime::NodePool pool;
    pool.add(make_node("n1", 2));
    prte::runtime::Job job;
    job.nspace = "prte-host-1@5";
    job.apps.push_back(prte::rmaps::test::make_app(0, 1));
    job.apps.push_back(prte::rmaps::test::make_app(1, 1));
    job.apps[1].map_by = "core:PE=2";
    prte::rmaps::base::claim_slot(job, *pool.find("n1"), 0);
    std::string text = prte::rmaps::base::map_report(job, pool);
    EXPECT_NE(text.find("    App 1 mapping policy: CORE:PE=2\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("App 0 mapping policy"), std::string::npos) << text;
}

}  // namespace
