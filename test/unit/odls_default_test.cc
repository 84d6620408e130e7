// odls/default with real processes: a real event loop, a real state machine whose process
// callbacks record each transition, and the PMIx hooks replaced by the test's own recorders.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hwloc.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mca/odls/default/odls_default_env.h"
#include "mca/odls/default/odls_default_module.h"
#include "runtime/state_machine.h"
#include "runtime/env_edit.h"
#include "runtime/event_loop.h"
#include "temp_dir.h"

namespace {

using prte::odls::default_component::DefaultModule;
using prte::odls::default_component::Options;
using prte::odls::default_component::Services;
using prte::runtime::AppContext;
using prte::runtime::Job;
using prte::runtime::JobPtr;
using prte::runtime::ProcState;
using prte::runtime::Rank;

constexpr auto kBound = std::chrono::seconds(60);  // generous: CI machines are slow and shared
constexpr const char* kNode = "testnode";

// What a callback saw, copied on the loop thread when the transition ran.
struct Transition {
    ProcState state;
    pid_t pid;
    int exit_code;
    int term_signal;
    std::string abort_message;
};

struct Output {
    std::string out, err;
    int out_ends = 0, err_ends = 0;
};

size_t open_fds()
{
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

class OdlsDefaultTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        for (ProcState s : {ProcState::running, ProcState::iof_complete, ProcState::waitpid_fired,
                            ProcState::failed_to_start}) {
            ASSERT_TRUE(machine_.add_proc_state(s, "record", [this](const JobPtr& job, Rank rank, ProcState state) {
                const auto& proc = *job->proc(rank);
                std::lock_guard lock(mutex_);
                transitions_[job->nspace][rank].push_back(
                    {state, proc.pid, proc.exit_code, proc.term_signal, job->abort_message});
                changed_.notify_all();
            }).ok());
        }
        loop_.start();
        make_module(Options{});
    }

    void TearDown() override
    {
        on_loop([this] { module_->finalize(); });
        loop_.stop();
        module_.reset();
    }

    void make_module(Options options)
    {
        if (module_) on_loop([this] { module_->finalize(); });
        Services services;
        services.loop = &loop_;
        services.state = &machine_;
        services.node_name = kNode;
        services.daemon_rank = 3;
        services.setup_fork = [this](const JobPtr&, Rank rank, std::vector<std::string>& env) {
            if (fail_setup_fork_) return prte::Status{prte::Errc::unreachable, "no server in this test"};
            env.push_back("PMIX_RANK=" + std::to_string(rank));
            env.push_back("PMIX_FROM_HOOK=yes");
            return prte::Status{};
        };
        services.deliver_output = [this](const Job& job, Rank rank, pmix_iof_channel_t channel, const char* data,
                                         size_t size) {
            std::lock_guard lock(mutex_);
            Output& o = output_[job.nspace][rank];
            bool is_out = channel == PMIX_FWD_STDOUT_CHANNEL;
            if (size == 0) {
                ++(is_out ? o.out_ends : o.err_ends);
            } else {
                (is_out ? o.out : o.err).append(data, size);
            }
            changed_.notify_all();
        };
        module_ = std::make_unique<DefaultModule>([services] { return services; }, options);
        prte::Status st;
        on_loop([&] { st = module_->init(); });
        ASSERT_TRUE(st.ok()) << st.message();
    }

    // Runs `work` on the progress thread and waits for it, as the runtime's callers would.
    void on_loop(std::function<void()> work)
    {
        std::promise<void> done;
        loop_.post([&] {
            work();
            done.set_value();
        });
        done.get_future().wait();
    }

    JobPtr make_job(std::vector<std::string> argv, int nprocs = 1, std::string nspace = "")
    {
        auto job = std::make_shared<Job>();
        job->nspace = nspace.empty() ? "test@" + std::to_string(++jobs_) : nspace;
        AppContext app;
        app.executable = argv.front();
        app.argv = std::move(argv);
        app.num_procs = nprocs;
        job->apps.push_back(app);
        for (int r = 0; r < nprocs; ++r) {
            auto proc = std::make_unique<prte::runtime::Proc>();
            proc->rank = r;
            proc->local_rank = r;
            proc->node_rank = r;
            job->procs.push_back(std::move(proc));
        }
        return job;
    }

    prte::Status launch(const JobPtr& job)
    {
        std::vector<Rank> ranks;
        for (const auto& p : job->procs) ranks.push_back(p->rank);
        prte::Status st;
        on_loop([&] { st = module_->launch(job, ranks); });
        return st;
    }

    bool wait_until(const std::function<bool()>& done)
    {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, kBound, done);
    }

    bool has(const std::string& nspace, Rank rank, ProcState state)
    {
        for (const auto& t : transitions_[nspace][rank]) {
            if (t.state == state) return true;
        }
        return false;
    }

    // Every rank reaped and its output closed (or failed before a fork, which has neither).
    bool wait_job_done(const JobPtr& job)
    {
        return wait_until([&] {
            for (const auto& p : job->procs) {
                const auto& seen = transitions_[job->nspace][p->rank];
                bool forkless = !seen.empty() && seen.front().state == ProcState::failed_to_start && seen.front().pid == 0;
                if (forkless) continue;
                if (!has(job->nspace, p->rank, ProcState::waitpid_fired) ||
                    !has(job->nspace, p->rank, ProcState::iof_complete)) {
                    return false;
                }
            }
            return true;
        });
    }

    bool saw(const JobPtr& job, Rank rank, ProcState state)
    {
        std::lock_guard lock(mutex_);
        return has(job->nspace, rank, state);
    }
    std::vector<Transition> transitions(const JobPtr& job, Rank rank)
    {
        std::lock_guard lock(mutex_);
        return transitions_[job->nspace][rank];
    }
    Output output(const JobPtr& job, Rank rank)
    {
        std::lock_guard lock(mutex_);
        return output_[job->nspace][rank];
    }
    // A copy, so that it may be taken from a temporary.
    std::optional<Transition> find(const std::vector<Transition>& seen, ProcState state)
    {
        for (const auto& t : seen) {
            if (t.state == state) return t;
        }
        return std::nullopt;
    }
    // What a write_stdin's acceptance reported: nullopt while it is held back.
    using Acceptance = std::shared_ptr<std::optional<prte::Status>>;

    // write_stdin from the progress thread, as the PMIx server's push does.
    Acceptance write_stdin(const JobPtr& job, Rank rank, std::string_view data, bool eof)
    {
        auto accepted = std::make_shared<std::optional<prte::Status>>();
        on_loop([&] {
            module_->write_stdin(job, rank, data, eof, [this, accepted](const prte::Status& st) {
                std::lock_guard lock(mutex_);
                *accepted = st;
                changed_.notify_all();
            });
        });
        return accepted;
    }
    ::testing::AssertionResult accepted_ok(const Acceptance& accepted)
    {
        std::lock_guard lock(mutex_);
        if (!accepted->has_value()) return ::testing::AssertionFailure() << "not accepted yet";
        if (!(*accepted)->ok()) return ::testing::AssertionFailure() << "refused: " << (*accepted)->message();
        return ::testing::AssertionSuccess();
    }
    size_t live()
    {
        size_t n = 0;
        on_loop([&] { n = module_->live_processes(); });
        return n;
    }

    prte::runtime::EventLoop loop_;
    prte::output::VerboseStream verbose_{"state"};
    prte::state::StateMachine machine_{loop_, verbose_};
    std::unique_ptr<DefaultModule> module_;
    bool fail_setup_fork_ = false;
    int jobs_ = 0;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, std::map<Rank, std::vector<Transition>>> transitions_;  // guarded by mutex_
    std::map<std::string, std::map<Rank, Output>> output_;                        // guarded by mutex_
};

TEST_F(OdlsDefaultTest, EchoRunsForwardsItsOutputAndIsReaped)
{
    JobPtr job = make_job({"/bin/echo", "hi"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    auto seen = transitions(job, 0);
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen.front().state, ProcState::running);  // always first
    EXPECT_GT(seen.front().pid, 0);
    std::optional<Transition> reaped = find(seen, ProcState::waitpid_fired);
    ASSERT_TRUE(reaped);
    EXPECT_EQ(reaped->exit_code, 0);
    EXPECT_EQ(reaped->term_signal, 0);
    Output out = output(job, 0);
    EXPECT_EQ(out.out, "hi\n");
    EXPECT_EQ(out.err, "");
    EXPECT_EQ(out.out_ends, 1);  // one end-of-stream marker per channel
    EXPECT_EQ(out.err_ends, 1);
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, ExitStatusIsRecorded)
{
    JobPtr job = make_job({"/bin/sh", "-c", "echo oops >&2; exit 3"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    std::optional<Transition> reaped = find(transitions(job, 0), ProcState::waitpid_fired);
    ASSERT_TRUE(reaped);
    EXPECT_EQ(reaped->exit_code, 3);
    EXPECT_EQ(reaped->term_signal, 0);
    EXPECT_EQ(output(job, 0).err, "oops\n");
}

TEST_F(OdlsDefaultTest, MissingExecutableFailsToStartWithItsReason)
{
    prte::test::TempDir dir;
    JobPtr job = make_job({"./nosuch"});
    job->apps[0].working_dir = dir.path();
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    auto seen = transitions(job, 0);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().state, ProcState::failed_to_start);
    EXPECT_EQ(seen.front().abort_message,
              "cannot start rank 0 on node testnode: ./nosuch: No such file or directory");
    EXPECT_EQ(seen.front().exit_code, 127);
    EXPECT_FALSE(find(seen, ProcState::running));
    // The child that could not exec is still closed and reaped, like any other.
    EXPECT_TRUE(find(seen, ProcState::iof_complete));
    EXPECT_EQ(find(seen, ProcState::waitpid_fired)->exit_code, 127);
    EXPECT_EQ(job->abort_message, seen.front().abort_message);
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, NonExecutableFileFailsWithPermissionDenied)
{
    prte::test::TempDir dir;
    std::string script = dir.write("script", "#!/bin/sh\necho never\n");
    ::chmod(script.c_str(), 0644);
    JobPtr job = make_job({script});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    auto seen = transitions(job, 0);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().state, ProcState::failed_to_start);
    EXPECT_EQ(seen.front().abort_message, "cannot start rank 0 on node testnode: " + script + ": Permission denied");
    EXPECT_EQ(seen.front().exit_code, 126);
    EXPECT_EQ(output(job, 0).out, "");
}

TEST_F(OdlsDefaultTest, BadWorkingDirectoryFailsToStart)
{
    JobPtr job = make_job({"/bin/true"});
    job->apps[0].working_dir = "/nonexistent/dir";
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    auto seen = transitions(job, 0);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().state, ProcState::failed_to_start);
    EXPECT_EQ(seen.front().abort_message, "cannot start rank 0 on node testnode: cannot change to working directory "
                                          "/nonexistent/dir: No such file or directory");
}

TEST_F(OdlsDefaultTest, PmixSetupFailureFailsBeforeForking)
{
    fail_setup_fork_ = true;
    JobPtr job = make_job({"/bin/true"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] { return has(job->nspace, 0, ProcState::failed_to_start); }));
    auto seen = transitions(job, 0);
    EXPECT_EQ(seen.front().pid, 0);  // nothing forked: nothing more will be reported
    EXPECT_NE(seen.front().abort_message.find("no server in this test"), std::string::npos);
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, BareNameIsFoundOnThePath)
{
    JobPtr job = make_job({"echo", "from", "path"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, "from path\n");
}

TEST_F(OdlsDefaultTest, WorkingDirectoryIsHonoured)
{
    prte::test::TempDir dir;
    JobPtr job = make_job({"/bin/pwd"});
    job->apps[0].working_dir = dir.path();
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST_F(OdlsDefaultTest, EnvironmentIsComposedInOrder)
{
    ::setenv("PMIX_LEFTOVER", "from-the-daemon", 1);  // a PMIx client variable of our own launch
    ::setenv("PMIX_MCA_test_setting", "kept", 1);      // a PMIx setting is not a leftover
    ::setenv("OMPI_COMM_WORLD_RANK", "99", 1);
    JobPtr job = make_job({"/bin/sh", "-c",
                           "echo $APP_VAR $PMIX_FROM_HOOK $PMIX_RANK ${PMIX_LEFTOVER:-dropped} $PMIX_MCA_test_setting "
                           "$PRTE_RANK $PRTE_LOCAL_RANK $PRTE_NODE_NAME $PRTE_NSPACE $OMPI_COMM_WORLD_SIZE "
                           "$OMPI_COMM_WORLD_RANK $OMPI_MCA_orte_local_daemon_uri $OVERRIDDEN"},
                          2);
    job->apps[0].env = {"APP_VAR=hello", "OVERRIDDEN=first", "OVERRIDDEN=second"};
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    ::unsetenv("PMIX_LEFTOVER");
    ::unsetenv("PMIX_MCA_test_setting");
    ::unsetenv("OMPI_COMM_WORLD_RANK");
    EXPECT_EQ(output(job, 1).out,
              "hello yes 1 dropped kept 1 1 testnode " + job->nspace + " 2 1 0.3; second\n");
}

TEST_F(OdlsDefaultTest, OmpiCompatibilityCanBeTurnedOff)
{
    make_module(Options{.kill_grace = std::chrono::milliseconds(100), .ompi_compat = false});
    JobPtr job = make_job({"/bin/sh", "-c", "echo ${OMPI_MCA_orte_local_daemon_uri:-unset}"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, "unset\n");
}

TEST_F(OdlsDefaultTest, MergedStderrArrivesOnStdout)
{
    JobPtr job = make_job({"/bin/sh", "-c", "echo one; echo two >&2; echo three"});
    job->output.merge_stderr = true;
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    Output out = output(job, 0);
    EXPECT_EQ(out.out, "one\ntwo\nthree\n");
    EXPECT_EQ(out.err, "");
    EXPECT_EQ(out.out_ends, 1);
    EXPECT_EQ(out.err_ends, 1);
}

TEST_F(OdlsDefaultTest, KillTerminatesAndRecordsTheSignal)
{
    JobPtr job = make_job({"/bin/sleep", "100"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] { return has(job->nspace, 0, ProcState::running); }));
    EXPECT_EQ(live(), 1u);
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
    std::optional<Transition> reaped = find(transitions(job, 0), ProcState::waitpid_fired);
    ASSERT_TRUE(reaped);
    EXPECT_EQ(reaped->term_signal, SIGTERM);
    EXPECT_EQ(reaped->exit_code, 128 + SIGTERM);
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, KillEscalatesToSigkillAfterTheGracePeriod)
{
    make_module(Options{.kill_grace = std::chrono::milliseconds(200), .ompi_compat = true});
    // An ignored signal stays ignored across exec, so this sleep ignores SIGTERM.
    JobPtr job = make_job({"/bin/sh", "-c", "trap '' TERM; echo ready; exec /bin/sleep 100"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] { return output_[job->nspace][0].out == "ready\n"; }));
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
    std::optional<Transition> reaped = find(transitions(job, 0), ProcState::waitpid_fired);
    ASSERT_TRUE(reaped);
    EXPECT_EQ(reaped->term_signal, SIGKILL);
    EXPECT_EQ(reaped->exit_code, 128 + SIGKILL);
}

TEST_F(OdlsDefaultTest, KillReachesWhatTheProcessStarted)
{
    // The background sleep holds the output pipe: IOF_COMPLETE can only come once it is dead too.
    JobPtr job = make_job({"/bin/sh", "-c", "/bin/sleep 100 & echo started; wait"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] { return output_[job->nspace][0].out == "started\n"; }));
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(find(transitions(job, 0), ProcState::waitpid_fired)->term_signal, SIGTERM);
}

TEST_F(OdlsDefaultTest, KillReachesWhatAnExitedProcessLeftBehind)
{
    // The script exits at once, but its background sleep keeps the output open: the job is not
    // over, and kill() must still be able to end it.
    JobPtr job = make_job({"/bin/sh", "-c", "/bin/sleep 100 & exit 0"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] { return has(job->nspace, 0, ProcState::waitpid_fired); }));
    EXPECT_FALSE(saw(job, 0, ProcState::iof_complete));
    EXPECT_EQ(live(), 0u);  // reaped; only its output is still open
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(find(transitions(job, 0), ProcState::waitpid_fired)->exit_code, 0);
}

TEST_F(OdlsDefaultTest, SignalIsDeliveredToTheJobOnly)
{
    JobPtr target = make_job({"/bin/sleep", "100"});
    JobPtr other = make_job({"/bin/sleep", "100"});
    ASSERT_TRUE(launch(target).ok());
    ASSERT_TRUE(launch(other).ok());
    ASSERT_TRUE(wait_until([&] {
        return has(target->nspace, 0, ProcState::running) && has(other->nspace, 0, ProcState::running);
    }));
    on_loop([&] { module_->signal(target, SIGUSR1); });
    ASSERT_TRUE(wait_job_done(target));
    EXPECT_EQ(find(transitions(target, 0), ProcState::waitpid_fired)->term_signal, SIGUSR1);
    EXPECT_EQ(live(), 1u);
    EXPECT_FALSE(saw(other, 0, ProcState::waitpid_fired));
    on_loop([&] { module_->kill(nullptr); });  // nullptr: every job
    ASSERT_TRUE(wait_job_done(other));
}

TEST_F(OdlsDefaultTest, ManyChildrenAreAllReaped)
{
    constexpr int kChildren = 50;
    JobPtr job = make_job({"/bin/sh", "-c", "echo $PRTE_RANK"}, kChildren);
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    for (int r = 0; r < kChildren; ++r) {
        auto seen = transitions(job, r);
        ASSERT_EQ(seen.size(), 3u) << "rank " << r;
        EXPECT_EQ(seen.front().state, ProcState::running);
        EXPECT_EQ(find(seen, ProcState::waitpid_fired)->exit_code, 0);
        EXPECT_EQ(output(job, r).out, std::to_string(r) + "\n");
    }
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, NoDescriptorLeaks)
{
    prte::test::TempDir dir;
    size_t before = open_fds();
    JobPtr ok = make_job({"/bin/echo", "x"}, 5);
    JobPtr missing = make_job({"/nonexistent/program"}, 3);
    JobPtr killed = make_job({"/bin/sleep", "100"}, 2);
    ok->stdin_target = {prte::runtime::StdinTarget::Kind::rank, 0};  // stdin pipes are closed too
    killed->stdin_target = {prte::runtime::StdinTarget::Kind::all, 0};
    for (const auto& job : {ok, missing, killed}) ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_until([&] {
        return has(killed->nspace, 0, ProcState::running) && has(killed->nspace, 1, ProcState::running);
    }));
    on_loop([&] { module_->kill(killed); });
    for (const auto& job : {ok, missing, killed}) ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(live(), 0u);
    EXPECT_EQ(open_fds(), before);
}

TEST_F(OdlsDefaultTest, DescriptorsOfTheDaemonDoNotReachThePrograms)
{
    // Opened without close-on-exec, as a library of the daemon might.
    int leaked = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(leaked, 3);
    JobPtr job = make_job({"/bin/sh", "-c",
                           "if [ -e /proc/$$/fd/" + std::to_string(leaked) + " ]; then echo leaked; else echo clean; fi; "
                           "[ -e /proc/$$/fd/0 ] && [ -e /proc/$$/fd/1 ] && [ -e /proc/$$/fd/2 ] && echo stdio"});
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    ::close(leaked);
    EXPECT_EQ(output(job, 0).out, "clean\nstdio\n");
}

// The daemon applies the CPUs the master's placement chose (Proc::cpuset), limited to the CPUs it
// may use itself: CPUs this machine lacks are dropped, and none at all leaves the process unbound.
TEST_F(OdlsDefaultTest, EachProcessGetsTheCpusTheMasterChose)
{
    cpu_set_t mine;
    ASSERT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
    int first = -1, last = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &mine)) continue;
        if (first < 0) first = cpu;
        last = cpu;
    }
    JobPtr job = make_job({"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status | cut -f2"}, 3);
    job->procs[0]->cpuset = std::to_string(last);
    job->procs[0]->binding = "core 9 (cpus " + std::to_string(last) + ")";
    job->procs[1]->cpuset = std::to_string(first) + ",4000";  // 4000: no such CPU here
    job->procs[2]->cpuset = "4000-4001";                       // none of them here
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, std::to_string(last) + "\n");
    EXPECT_EQ(output(job, 1).out, std::to_string(first) + "\n");
    std::string all = first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
    if (CPU_COUNT(&mine) == last - first + 1) EXPECT_EQ(output(job, 2).out, all + "\n");
}

// A CPU list that does not parse (a corrupt launch message) fails that rank before fork, by name.
TEST_F(OdlsDefaultTest, ACpuListThatDoesNotParseFailsTheRank)
{
    JobPtr job = make_job({"/bin/true"});
    job->procs[0]->cpuset = "0-";
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(job->abort_message, "cannot start rank 0 on node testnode: rank 0: cannot read its CPU list '0-'");
    auto seen = transitions(job, 0);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().state, ProcState::failed_to_start);
}

TEST_F(OdlsDefaultTest, RanksOutsideTheJobAreRefused)
{
    JobPtr job = make_job({"/bin/true"});
    prte::Status st;
    on_loop([&] { st = module_->launch(job, {7}); });
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(live(), 0u);
}

TEST_F(OdlsDefaultTest, StdinReachesTheTargetAndItsEndEndsTheReader)
{
    JobPtr job = make_job({"/bin/cat"}, 2);
    job->stdin_target = {prte::runtime::StdinTarget::Kind::rank, 0};
    ASSERT_TRUE(launch(job).ok());
    // Rank 1 reads /dev/null: it ends at once, while rank 0 waits for its input.
    ASSERT_TRUE(wait_until([&] { return has(job->nspace, 1, ProcState::waitpid_fired); }));
    EXPECT_FALSE(saw(job, 0, ProcState::waitpid_fired));
    auto first = write_stdin(job, 0, "a\n", false);
    ASSERT_TRUE(wait_until([&] { return output_[job->nspace][0].out == "a\n"; }));
    auto second = write_stdin(job, 0, "b\n", false);
    auto end = write_stdin(job, 0, "", true);
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, "a\nb\n");
    EXPECT_EQ(output(job, 1).out, "");
    EXPECT_EQ(find(transitions(job, 0), ProcState::waitpid_fired)->exit_code, 0);
    for (const auto& accepted : {first, second, end}) EXPECT_TRUE(accepted_ok(accepted));
}

TEST_F(OdlsDefaultTest, ProcessesThatAreNotTheStdinTargetReadDevNull)
{
    // Without a target (the default) every process reads /dev/null, and writes go nowhere.
    JobPtr job = make_job({"/bin/sh", "-c", "cat; echo done"});
    ASSERT_TRUE(launch(job).ok());
    auto dropped = write_stdin(job, 0, "lost\n", true);
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_EQ(output(job, 0).out, "done\n");
    EXPECT_TRUE(accepted_ok(dropped));
}

TEST_F(OdlsDefaultTest, LargeStdinArrivesWholeAndInOrder)
{
    // Several MiB, far more than a pipe holds: most waits in the module's queue, and the writes
    // are held back (not refused) until the reader catches up.
    JobPtr job = make_job({"/bin/sh", "-c", "sleep 0.3; cat"});
    job->stdin_target = {prte::runtime::StdinTarget::Kind::all, 0};
    ASSERT_TRUE(launch(job).ok());
    std::string expected;
    std::vector<Acceptance> acceptances;
    constexpr size_t kChunk = 64 * 1024;
    for (int i = 0; expected.size() < 6 * 1024 * 1024; ++i) {
        std::string chunk(kChunk, static_cast<char>('a' + i % 26));
        chunk.back() = '\n';
        // As prun does: the next chunk only once the previous one was accepted.
        if (!acceptances.empty()) {
            auto last = acceptances.back();
            ASSERT_TRUE(wait_until([&] { return last->has_value(); }));
        }
        acceptances.push_back(write_stdin(job, 0, chunk, false));
        expected += chunk;
    }
    acceptances.push_back(write_stdin(job, 0, "", true));
    ASSERT_TRUE(wait_job_done(job));
    Output out = output(job, 0);
    EXPECT_EQ(out.out.size(), expected.size());
    EXPECT_TRUE(out.out == expected) << "the data arrived changed or out of order";
    for (const auto& accepted : acceptances) EXPECT_TRUE(accepted_ok(accepted));
}

TEST_F(OdlsDefaultTest, StdinIsHeldBackThenRefusedWhenTheReaderLagsBehind)
{
    // A writer that does not wait for acceptance, to a process that reads nothing: the pipe takes
    // its fill, the module queues the rest.
    JobPtr job = make_job({"/bin/sleep", "100"});
    job->stdin_target = {prte::runtime::StdinTarget::Kind::rank, 0};
    ASSERT_TRUE(launch(job).ok());
    std::string mib(1024 * 1024, 'x');
    std::vector<Acceptance> writes;
    for (int i = 0; i < 6; ++i) writes.push_back(write_stdin(job, 0, mib, false));
    EXPECT_TRUE(accepted_ok(writes[0]));  // under 1 MiB queued: accepted at once
    {
        std::lock_guard lock(mutex_);
        EXPECT_FALSE(writes[2]->has_value());  // about 3 MiB queued: held back
        ASSERT_TRUE(writes[5]->has_value());   // beyond 4 MiB: refused
        EXPECT_EQ((*writes[5])->code(), prte::Errc::out_of_resource);
        EXPECT_NE((*writes[5])->message().find("does not read its stdin"), std::string::npos)
            << (*writes[5])->message();
    }
    // What is held back is answered when the process goes, so no tool waits for ever.
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
    ASSERT_TRUE(wait_until([&] { return writes[3]->has_value(); }));
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(accepted_ok(writes[i])) << "write " << i;
}

TEST_F(OdlsDefaultTest, StdinForAProcessThatHasExitedIsDropped)
{
    JobPtr job = make_job({"/bin/true"});
    job->stdin_target = {prte::runtime::StdinTarget::Kind::rank, 0};
    ASSERT_TRUE(launch(job).ok());
    ASSERT_TRUE(wait_job_done(job));
    EXPECT_TRUE(accepted_ok(write_stdin(job, 0, std::string(256 * 1024, 'x'), false)));
}

TEST_F(OdlsDefaultTest, StdinForAReaderThatClosedItIsDropped)
{
    // The process lives on but closes its stdin: the next write gets EPIPE, which must neither
    // kill us (SIGPIPE is not ignored in this test) nor keep the writer waiting.
    JobPtr job = make_job({"/bin/sh", "-c", "read line; echo \"got $line\"; exec 0<&-; echo closed; exec sleep 100"});
    job->stdin_target = {prte::runtime::StdinTarget::Kind::rank, 0};
    ASSERT_TRUE(launch(job).ok());
    write_stdin(job, 0, "one\n", false);
    ASSERT_TRUE(wait_until([&] { return output_[job->nspace][0].out == "got one\nclosed\n"; }));
    EXPECT_TRUE(accepted_ok(write_stdin(job, 0, std::string(1024 * 1024, 'y'), false)));
    EXPECT_TRUE(accepted_ok(write_stdin(job, 0, "more\n", true)));
    EXPECT_FALSE(saw(job, 0, ProcState::waitpid_fired));
    on_loop([&] { module_->kill(job); });
    ASSERT_TRUE(wait_job_done(job));
}

TEST(OdlsDefaultEnvironmentTest, LaunchVariablesOfTheDaemonAreNotInherited)
{
    using prte::odls::default_component::is_inherited_launch_variable;
    EXPECT_TRUE(is_inherited_launch_variable("PMIX_NAMESPACE"));
    EXPECT_TRUE(is_inherited_launch_variable("PMIX_SERVER_URI41"));
    EXPECT_FALSE(is_inherited_launch_variable("PMIX_MCA_gds"));
    EXPECT_TRUE(is_inherited_launch_variable("OMPI_COMM_WORLD_RANK"));
    EXPECT_TRUE(is_inherited_launch_variable("OMPI_MCA_orte_local_daemon_uri"));
    EXPECT_FALSE(is_inherited_launch_variable("OMPI_MCA_btl"));
    EXPECT_FALSE(is_inherited_launch_variable("PRTE_MCA_odls_base_verbose"));
    EXPECT_FALSE(is_inherited_launch_variable("PATH"));
}

// Open MPI's MPI_Comm_spawn passes the parent's OMPI_* environment on as the children's app
// environment; the parent's launch facts must not replace the child's (issue 44 item 5: children
// on two nodes sharing a machine put their segments in the parent node's directory and crashed).
TEST(OdlsDefaultEnvironmentTest, AnAppsCopyOfAnotherLaunchsFactsDoesNotReplaceThisOnes)
{
    using namespace prte::odls::default_component;
    Job job;
    job.nspace = "child@2";
    for (int r = 0; r < 4; ++r) {
        auto proc = std::make_unique<prte::runtime::Proc>();
        proc->rank = r;
        proc->local_rank = r % 2;
        job.procs.push_back(std::move(proc));
    }
    AppContext app;
    const std::string parents_dir = "/tmp/x/prte.0/prte-vm-1.d1.session/ompi-shm";
    app.env = {"OMPI_MCA_btl_vader_backing_directory=" + parents_dir, "OMPI_MCA_orte_local_daemon_uri=0.1;",
               "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_LOCAL_RANK=0", "OMPI_MCA_btl=self,vader,tcp"};
    ChildEnvironmentInput in;
    in.job = &job;
    in.proc = job.procs[3].get();
    in.app = &app;
    in.local_size = 2;
    in.daemon_rank = 3;
    in.ompi_shm_dir = "/tmp/x/prte.0/prte-vm-1.d3.session/ompi-shm";
    Environment env = build_child_environment(in);
    EXPECT_EQ(env.value("OMPI_MCA_btl_vader_backing_directory"), in.ompi_shm_dir);
    EXPECT_EQ(env.value("OMPI_MCA_orte_local_daemon_uri"), "0.3;");
    EXPECT_EQ(env.value("OMPI_COMM_WORLD_RANK"), "3");
    EXPECT_EQ(env.value("OMPI_COMM_WORLD_LOCAL_RANK"), "1");
    EXPECT_EQ(env.value("OMPI_MCA_btl"), "self,vader,tcp");  // a setting, not a launch fact

    // A directory the user chose (prun -x) is the user's, and so is an edit of a fact.
    app.env = {"OMPI_MCA_btl_vader_backing_directory=/dev/shm"};
    EXPECT_EQ(build_child_environment(in).value("OMPI_MCA_btl_vader_backing_directory"), "/dev/shm");
    app.env = {prte::runtime::encode_env_edit({.kind = prte::runtime::EnvEdit::append, .name = "OMPI_COMM_WORLD_RANK",
                                               .separator = '-', .value = "x"})};
    EXPECT_EQ(build_child_environment(in).value("OMPI_COMM_WORLD_RANK"), "3-x");
    // A daemon that sets no directory of its own (its node has the machine's hostname) drops
    // another daemon's too: Open MPI's default then keeps its segments apart.
    in.ompi_shm_dir.clear();
    app.env = {"OMPI_MCA_btl_vader_backing_directory=" + parents_dir};
    EXPECT_EQ(build_child_environment(in).value("OMPI_MCA_btl_vader_backing_directory"), std::nullopt);
    EXPECT_TRUE(is_daemon_shm_dir(parents_dir));
    EXPECT_TRUE(is_daemon_shm_dir(parents_dir + "/"));
    EXPECT_FALSE(is_daemon_shm_dir("/dev/shm"));
    EXPECT_FALSE(is_daemon_shm_dir("/scratch/ompi-shm"));
}

TEST(OdlsDefaultEnvironmentTest, ExecutableCandidatesFollowThePath)
{
    using prte::odls::default_component::Environment;
    using prte::odls::default_component::executable_candidates;
    Environment env;
    env.set("PATH", "/a:/b::rel");
    EXPECT_EQ(executable_candidates("prog", env), (std::vector<std::string>{"/a/prog", "/b/prog", "prog", "rel/prog"}));
    EXPECT_EQ(executable_candidates("./prog", env), (std::vector<std::string>{"./prog"}));
    EXPECT_EQ(executable_candidates("/abs/prog", env), (std::vector<std::string>{"/abs/prog"}));
}

}  // namespace
