// runtime::ChildProcess: a command run from the progress loop - its output line by line, its end
// (after its output), its stdin written or held open until closed, its environment and directory.
#include "runtime/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "runtime/event_loop.h"

namespace {

using prte::runtime::ChildProcess;
using prte::runtime::EventLoop;

struct Outcome {
    std::vector<std::string> lines;
    int status = -1;
    bool lines_before_exit = true;
};

// Runs `spec` on a loop of this thread until the child has ended; `while_running` runs on the loop
// once the child is started.
Outcome run(const ChildProcess::Spec& spec, std::function<void(ChildProcess&)> while_running = {})
{
    EventLoop loop;
    ChildProcess child;
    Outcome out;
    bool ended = false;
    loop.post([&] {
        prte::Status st = child.start(
            loop.base(), spec,
            [&](const std::string& line) {
                if (ended) out.lines_before_exit = false;
                out.lines.push_back(line);
            },
            [&](int status) {
                ended = true;
                out.status = status;
                loop.stop();
            });
        EXPECT_TRUE(st) << st.message();
        if (!st) {
            loop.stop();
            return;
        }
        if (while_running) while_running(child);
    });
    loop.run();
    return out;
}

TEST(ChildProcess, OutputLinesThenTheExitStatus)
{
    ChildProcess::Spec spec;
    spec.argv = {"/bin/sh", "-c", "echo one; echo two >&2; printf three; exit 3"};
    Outcome out = run(spec);
    EXPECT_EQ(out.lines, (std::vector<std::string>{"one", "two", "three"}));
    ASSERT_TRUE(WIFEXITED(out.status));
    EXPECT_EQ(WEXITSTATUS(out.status), 3);
    EXPECT_TRUE(out.lines_before_exit);
    EXPECT_EQ(ChildProcess::describe(out.status), "exited with status 3");
}

TEST(ChildProcess, StdinTextIsWrittenThenClosed)
{
    ChildProcess::Spec spec;
    spec.argv = {"/bin/sh", "-c", "read first; echo \"got $first\"; cat"};
    spec.stdin_text = "secret\nmore\n";
    Outcome out = run(spec);
    EXPECT_EQ(out.lines, (std::vector<std::string>{"got secret", "more"}));
    EXPECT_EQ(out.status, 0);
}

TEST(ChildProcess, AHolderLivesUntilItsStdinIsClosed)
{
    ChildProcess::Spec spec;
    spec.argv = {"/bin/sh", "-c", "echo holding; cat >/dev/null; echo released"};
    spec.keep_stdin_open = true;
    bool was_running = false;
    Outcome out = run(spec, [&](ChildProcess& child) {
        was_running = child.running();
        child.close_stdin();
    });
    EXPECT_TRUE(was_running);
    EXPECT_EQ(out.lines, (std::vector<std::string>{"holding", "released"}));
    EXPECT_EQ(out.status, 0);
}

TEST(ChildProcess, EnvironmentUnsetByNameAndPrefixThenSet)
{
    setenv("PRTE_CP_TEST_A", "a", 1);
    setenv("PRTE_CP_TEST_B", "b", 1);
    setenv("PRTE_CP_KEEP", "k", 1);
    ChildProcess::Spec spec;
    spec.argv = {"/bin/sh", "-c", "echo \"${PRTE_CP_TEST_A-unset} ${PRTE_CP_TEST_B-unset} $PRTE_CP_KEEP $PRTE_CP_SET\""};
    spec.env_unset = {"PRTE_CP_TEST_*"};
    spec.env_set = {{"PRTE_CP_SET", "s"}, {"PRTE_CP_KEEP", "replaced"}};
    Outcome out = run(spec);
    EXPECT_EQ(out.lines, (std::vector<std::string>{"unset unset replaced s"}));
}

TEST(ChildProcess, RunsInTheGivenDirectory)
{
    ChildProcess::Spec spec;
    spec.argv = {"/bin/pwd"};
    spec.cwd = "/";
    EXPECT_EQ(run(spec).lines, (std::vector<std::string>{"/"}));
}

TEST(ChildProcess, AMissingProgramEndsWith127AndSaysWhy)
{
    ChildProcess::Spec spec;
    spec.argv = {"/nonexistent/program"};
    Outcome out = run(spec);
    ASSERT_TRUE(WIFEXITED(out.status));
    EXPECT_EQ(WEXITSTATUS(out.status), 127);
    ASSERT_EQ(out.lines.size(), 1u);
    EXPECT_NE(out.lines[0].find("cannot run '/nonexistent/program'"), std::string::npos) << out.lines[0];
}

TEST(ChildProcess, DestroyingItEndsAChildStillRunning)
{
    pid_t pid = 0;
    {
        EventLoop loop;
        ChildProcess child;
        ChildProcess::Spec spec;
        spec.argv = {"/bin/sleep", "60"};
        loop.post([&] {
            ASSERT_TRUE(child.start(loop.base(), spec, nullptr, nullptr));
            pid = child.pid();
            loop.stop();
        });
        loop.run();
        ASSERT_GT(pid, 0);
    }
    // Reaped by the destructor: no such child any more.
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);
}

// What the child started stays in its group after it ends (a shell agent killed while its daemon
// shuts down): the group counts as alive until that has ended too, and can still be signalled.
TEST(ChildProcess, ItsGroupIsAliveUntilWhatItStartedHasEnded)
{
    EventLoop loop;
    ChildProcess child;
    ChildProcess::Spec spec;
    spec.argv = {"/bin/sh", "-c", "sleep 60 </dev/null >/dev/null 2>&1 & exit 0"};
    loop.post([&] {
        EXPECT_TRUE(child.start(loop.base(), spec, nullptr, nullptr));
        loop.stop();
    });
    loop.run();
    ASSERT_TRUE(child.wait_for_exit(5));
    EXPECT_TRUE(child.group_alive()) << "the shell's sleep was not counted";
    child.signal_group(SIGKILL);
    // Its zombie may wait for init's reaper; it does not count.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (child.group_alive() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(child.group_alive());
}

}  // namespace
