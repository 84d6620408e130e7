// ras/slurm: the compressed per-node counts Slurm puts in SLURM_JOB_CPUS_PER_NODE and
// SLURM_TASKS_PER_NODE, allocate() turning a Slurm job's environment into the DVM's nodes
// (or passing outside a job, so that ras/hosts serves), and the module's timers (the watch of
// node states, a grow's backstop) going with what they serve.
#include <event2/event.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mca/ras/slurm/ras_slurm_counts.h"
#include "mca/ras/slurm/ras_slurm_module.h"
#include "runtime/loop_timer.h"
#include "runtime/runtime.h"
#include "util/output.h"

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

// The module's timers are on the runtime's loop: an elastic runtime is set up for this suite (a
// tool's, which touches no other process's session), and its loop is run here, on the test's
// thread, only as long as a test waits for something.
class SlurmTimers : public ::testing::Test {
  protected:
    static void SetUpTestSuite()
    {
        prte::runtime::Settings settings;
        settings.elastic_mode = true;
        // The role's type as Identity holds it, whichever floor declares it.
        using Role = decltype(prte::runtime::Identity{}.role);
        prte::Status st = rt().init(Role::tool, settings, state_verbose());
        ASSERT_TRUE(st) << st.message();
    }
    static void TearDownTestSuite()
    {
        rt().finalize();
        rt().elastic().set_enabled(false);
    }
    void SetUp() override
    {
        for (const char* v : {"SLURM_JOB_CPUS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS"}) unsetenv(v);
        setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
        setenv("SLURM_JOB_ID", "46", 1);
        setenv("SLURM_JOB_NODELIST", "n1", 1);
        before_ = loop().armed_timers();
    }
    static prte::runtime::Runtime& rt() { return prte::runtime::Runtime::instance(); }
    static prte::runtime::EventLoop& loop() { return rt().loop(); }
    static const prte::output::VerboseStream& state_verbose()
    {
        static const prte::output::VerboseStream stream{"state"};
        return stream;
    }
    // A module whose grows ask `false` for nodes: refused as soon as the loop sees it exit.
    static prte::ras::slurm::Options refusing_slurm(int watch_interval)
    {
        prte::ras::slurm::Options options;
        options.watch_interval = watch_interval;
        options.companion.salloc = "false";
        return options;
    }
    // Runs the loop until `done` holds, or 30 s have passed (then the test fails, never hangs).
    static bool run_until(const std::function<bool()>& done)
    {
        bool overdue = false;
        prte::runtime::LoopTimer guard(loop(), [&] { overdue = true; });
        guard.arm(std::chrono::seconds(30));
        while (!done() && !overdue) event_base_loop(loop().base(), EVLOOP_ONCE);
        return done();
    }
    static prte::runtime::AllocationRequest two_nodes()
    {
        prte::runtime::AllocationRequest request;
        request.directive = prte::runtime::AllocDirective::extend;
        request.num_nodes = 2;
        return request;
    }
    size_t before_ = 0;
    NodePool pool;
};

TEST_F(SlurmTimers, TheWatchOfNodeStatesGoesWithTheModule)
{
    {
        prte::ras::slurm::SlurmModule module{refusing_slurm(5)};
        ASSERT_TRUE(module.allocate({}, pool));
        EXPECT_EQ(loop().armed_timers(), before_ + 1) << "no watch armed in elastic mode";
    }
    EXPECT_EQ(loop().armed_timers(), before_) << "the watch outlived its module";
}

TEST_F(SlurmTimers, AGrowsBackstopGoesWithTheModule)
{
    {
        prte::ras::slurm::SlurmModule module{refusing_slurm(0)};
        ASSERT_TRUE(module.allocate({}, pool));
        EXPECT_EQ(loop().armed_timers(), before_);
        std::optional<prte::ras::ModifyResult> answer;
        ASSERT_TRUE(module.modify(two_nodes(), prte::ras::RequestCompletion(
                                                   "slurm", [&](prte::ras::ModifyResult r) { answer = std::move(r); })));
        EXPECT_EQ(loop().armed_timers(), before_ + 1) << "no backstop armed for the grow";
        EXPECT_FALSE(answer);
    }
    EXPECT_EQ(loop().armed_timers(), before_) << "the grow's backstop outlived its module";
}

TEST_F(SlurmTimers, ARefusedGrowTakesItsBackstopWithIt)
{
    prte::ras::slurm::SlurmModule module{refusing_slurm(0)};
    ASSERT_TRUE(module.allocate({}, pool));
    std::optional<prte::ras::ModifyResult> answer;
    size_t armed_at_answer = 0;
    ASSERT_TRUE(module.modify(two_nodes(), prte::ras::RequestCompletion("slurm", [&](prte::ras::ModifyResult r) {
                                  armed_at_answer = loop().armed_timers();
                                  answer = std::move(r);
                              })));
    ASSERT_TRUE(run_until([&] { return answer.has_value(); })) << "the grow was never answered";
    EXPECT_EQ(answer->status.code(), Errc::out_of_resource) << answer->status.message();
    // The guard of run_until is armed while the answer is given, and nothing else.
    EXPECT_EQ(armed_at_answer, before_ + 1) << "the refused grow's backstop is still armed";
}

}  // namespace
