// ras/slurm: the compressed per-node counts Slurm puts in SLURM_JOB_CPUS_PER_NODE and
// SLURM_TASKS_PER_NODE, and allocate() turning a Slurm job's environment into the DVM's nodes
// (or passing outside a job, so that ras/hosts serves).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "mca/ras/slurm/ras_slurm_counts.h"
#include "mca/ras/slurm/ras_slurm_module.h"

namespace {

using prte::Errc;
using prte::ras::slurm::expand_counts;
using prte::runtime::NodePool;

std::vector<int> counts(const std::string& text)
{
    std::vector<int> out;
    prte::Status st = expand_counts(text, out);
    EXPECT_TRUE(st) << text << ": " << st.message();
    return out;
}

TEST(SlurmCounts, ExpandsRepeatsInOrder)
{
    EXPECT_EQ(counts("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
    EXPECT_EQ(counts("4"), (std::vector<int>{4}));
    EXPECT_EQ(counts("1,8(x2),3"), (std::vector<int>{1, 8, 8, 3}));
    EXPECT_EQ(counts("16(x1)"), (std::vector<int>{16}));
}

TEST(SlurmCounts, RejectsMalformedTextNamingIt)
{
    for (const char* bad : {"", "2(x3", "2(3)", "x,1", "2(x0)", "2(x-1)", "1,,2", "-1", "2(xa)", "2 (x2)"}) {
        std::vector<int> out{7};
        prte::Status st = expand_counts(bad, out);
        EXPECT_FALSE(st) << "accepted '" << bad << "'";
        EXPECT_EQ(st.code(), Errc::bad_param) << bad;
        EXPECT_EQ(out, std::vector<int>{7}) << "changed the output for '" << bad << "'";
        if (*bad) EXPECT_NE(st.message().find(bad), std::string::npos) << st.message();
    }
}

// Each test sets the Slurm job's variables it means and clears the rest.
class SlurmAllocate : public ::testing::Test {
  protected:
    void SetUp() override
    {
        for (const char* v : {"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                              "SLURM_JOB_CPUS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS",
                              "SLURM_NTASKS_PER_NODE"}) {
            unsetenv(v);
        }
        // No configuration: the module must not ask slurmctld (libslurm would end the test).
        setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
    }
    prte::ras::slurm::SlurmModule module{{}};
    NodePool pool;
};

TEST_F(SlurmAllocate, PassesOutsideASlurmJob)
{
    prte::Status st = module.allocate({}, pool);
    EXPECT_EQ(st.code(), Errc::take_next_option);
    EXPECT_EQ(pool.size(), 0u);
}

TEST_F(SlurmAllocate, TakesTheJobsNodesWithTheirCpus)
{
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-3],big", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "2(x3),8", 1);
    ASSERT_TRUE(module.allocate({}, pool));
    ASSERT_EQ(pool.size(), 4u);
    std::vector<std::string> names;
    std::vector<int> slots;
    for (const auto* node : pool.nodes()) {
        names.push_back(node->name);
        slots.push_back(node->slots);
        EXPECT_TRUE(node->slots_given);
        EXPECT_EQ(node->ras_component, "slurm");
        EXPECT_EQ(node->scheduler_job, "42");
    }
    EXPECT_EQ(names, (std::vector<std::string>{"n1", "n2", "n3", "big"}));
    EXPECT_EQ(slots, (std::vector<int>{2, 2, 2, 8}));
}

TEST_F(SlurmAllocate, TasksPerNodeWhenTheJobWasGivenATaskCount)
{
    setenv("SLURM_JOB_ID", "43", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-2]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x2)", 1);
    setenv("SLURM_NTASKS", "3", 1);
    setenv("SLURM_TASKS_PER_NODE", "2,1", 1);
    ASSERT_TRUE(module.allocate({}, pool));
    ASSERT_EQ(pool.size(), 2u);
    EXPECT_EQ(pool.at(0).slots, 2);
    EXPECT_EQ(pool.at(1).slots, 1);
}

TEST_F(SlurmAllocate, CountsThatDoNotMatchTheNodesAreAnError)
{
    setenv("SLURM_JOB_ID", "44", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-3]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "2(x2)", 1);
    prte::Status st = module.allocate({}, pool);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_NE(st.message().find("SLURM_JOB_CPUS_PER_NODE='2(x2)' gives 2 count(s) for the 3 node(s)"), std::string::npos)
        << st.message();
    EXPECT_EQ(pool.size(), 0u);
}

TEST_F(SlurmAllocate, AMalformedNodeListIsAnErrorNamingTheVariable)
{
    setenv("SLURM_JOB_ID", "45", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-", 1);
    prte::Status st = module.allocate({}, pool);
    EXPECT_FALSE(st);
    EXPECT_NE(st.message().find("SLURM_JOB_NODELIST"), std::string::npos) << st.message();
}

}  // namespace
