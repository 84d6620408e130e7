// The state machine base: tables, posting, error fallback, passive markers.
#include <gtest/gtest.h>

#include <deque>
#include <memory>

#include "runtime/state_machine.h"

using prte::runtime::JobState;
using prte::runtime::ProcState;

namespace {

// Runs posted work only when the test says so, so the order of transitions is visible.
class QueueDispatcher : public prte::runtime::Dispatcher {
  public:
    void post(std::function<void()> work) override { queue_.push_back(std::move(work)); }
    bool on_owner_thread() const override { return true; }
    size_t run_all()
    {
        size_t n = 0;
        while (!queue_.empty()) {
            auto work = std::move(queue_.front());
            queue_.pop_front();
            work();
            ++n;
        }
        return n;
    }
    size_t pending() const { return queue_.size(); }

  private:
    std::deque<std::function<void()>> queue_;
};

struct Fixture : ::testing::Test {
    QueueDispatcher dispatcher;
    prte::output::VerboseStream verbose{"state"};
    prte::state::StateMachine machine{dispatcher, verbose};
    std::shared_ptr<prte::runtime::Job> job = std::make_shared<prte::runtime::Job>();
};

}  // namespace

TEST_F(Fixture, ActivationIsPostedNotRunInline)
{
    std::vector<JobState> seen;
    ASSERT_TRUE(machine.add_job_state(JobState::init, "setup_job", [&](const auto& j) {
        seen.push_back(j->state);
        machine.activate_job_state(j, JobState::init_complete);
        // The next state must not have run yet: callbacks never nest.
        EXPECT_EQ(seen.size(), 1u);
    }).ok());
    ASSERT_TRUE(machine.add_job_state(JobState::init_complete, "init_complete",
                                      [&](const auto& j) { seen.push_back(j->state); }).ok());
    machine.activate_job_state(job, JobState::init);
    EXPECT_TRUE(seen.empty());
    EXPECT_EQ(dispatcher.run_all(), 2u);
    EXPECT_EQ(seen, (std::vector<JobState>{JobState::init, JobState::init_complete}));
    EXPECT_EQ(job->state, JobState::init_complete);
}

TEST_F(Fixture, DuplicateStateIsRefused)
{
    ASSERT_TRUE(machine.add_job_state(JobState::map, "a", [](const auto&) {}).ok());
    prte::Status st = machine.add_job_state(JobState::map, "b", [](const auto&) {});
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("PRTE_JOB_STATE_MAP already has callback a"), std::string::npos);
    int ran = 0;
    ASSERT_TRUE(machine.set_job_state_callback(JobState::map, "b", [&](const auto&) { ++ran; }).ok());
    machine.activate_job_state(job, JobState::map);
    dispatcher.run_all();
    EXPECT_EQ(ran, 1);
}

TEST_F(Fixture, ErrorStateFallsBackToGenericErrorCallback)
{
    JobState got = JobState::undef;
    ASSERT_TRUE(machine.add_job_state(JobState::error, "generic_error", [&](const auto& j) { got = j->state; }).ok());
    machine.activate_job_state(job, JobState::map_failed);
    dispatcher.run_all();
    EXPECT_EQ(got, JobState::map_failed);
}

TEST_F(Fixture, StateWithoutCallbackOnlySetsTheState)
{
    machine.activate_job_state(job, JobState::running);
    dispatcher.run_all();
    EXPECT_EQ(job->state, JobState::running);
}

TEST_F(Fixture, ProcStatesUpdateTheProc)
{
    job->procs.push_back(std::make_unique<prte::runtime::Proc>());
    job->procs.push_back(std::make_unique<prte::runtime::Proc>());
    std::vector<std::pair<prte::runtime::Rank, ProcState>> seen;
    ASSERT_TRUE(machine.add_proc_state(ProcState::running, "track_procs", [&](const auto&, auto rank, auto state) {
        seen.emplace_back(rank, state);
    }).ok());
    machine.activate_proc_state(job, 1, ProcState::running);
    dispatcher.run_all();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].first, 1u);
    EXPECT_EQ(job->procs[1]->state, ProcState::running);
    EXPECT_EQ(job->procs[0]->state, ProcState::init);
}

TEST_F(Fixture, WaitingForDaemonsIsAPassiveMarker)
{
    machine.mark_job_state(*job, JobState::waiting_for_daemons, "held at the launch fence");
    EXPECT_EQ(job->state, JobState::waiting_for_daemons);
    EXPECT_EQ(dispatcher.pending(), 0u);
    EXPECT_STREQ(prte::runtime::to_string(JobState::waiting_for_daemons), "PRTE_JOB_STATE_WAITING_FOR_DAEMONS");
    EXPECT_TRUE(prte::runtime::is_alive(JobState::waiting_for_daemons));
}

TEST_F(Fixture, DescribeListsTheTableInInsertionOrder)
{
    ASSERT_TRUE(machine.add_job_state(JobState::vm_ready, "vm_ready", [](const auto&) {}).ok());
    ASSERT_TRUE(machine.add_job_state(JobState::map, "map_job", [](const auto&) {}).ok());
    std::string table = machine.describe();
    size_t vm = table.find("PRTE_JOB_STATE_VM_READY"), map = table.find("PRTE_JOB_STATE_MAP ");
    ASSERT_NE(vm, std::string::npos);
    ASSERT_NE(map, std::string::npos);
    EXPECT_LT(vm, map);
    machine.remove_job_state(JobState::vm_ready);
    EXPECT_EQ(machine.describe().find("VM_READY"), std::string::npos);
}

TEST(StateNumbers, MatchTheSpecification)
{
    // spec: job-launch-state-machine.txt, 7.4.2 / 7.4.4 / 7.4.5
    EXPECT_EQ(static_cast<int>(JobState::launch_daemons), 8);
    EXPECT_EQ(static_cast<int>(JobState::vm_ready), 11);
    EXPECT_EQ(static_cast<int>(JobState::map), 5);
    EXPECT_EQ(static_cast<int>(JobState::started), 20);
    EXPECT_EQ(static_cast<int>(JobState::registered), 16);
    EXPECT_EQ(static_cast<int>(JobState::alloc_failed), 68);
    EXPECT_EQ(static_cast<int>(JobState::map_failed), 69);
    EXPECT_EQ(static_cast<int>(JobState::cannot_launch), 70);
    EXPECT_EQ(static_cast<int>(JobState::forced_exit), 64);
    EXPECT_EQ(static_cast<int>(ProcState::waitpid_fired), 7);
    EXPECT_EQ(static_cast<int>(ProcState::terminated), 20);
    EXPECT_TRUE(prte::runtime::is_error(JobState::aborted));
    EXPECT_FALSE(prte::runtime::is_alive(JobState::terminated));
}
