// The progress thread: posted work runs on the loop thread, in order, stop() drains it, and work
// posted after stop() is refused, visibly.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/event_loop.h"

using prte::runtime::EventLoop;

TEST(EventLoopTest, PostedWorkRunsOnTheLoopThreadInOrder)
{
    EventLoop loop;
    loop.start();
    std::mutex m;
    std::vector<int> order;
    std::atomic<int> off_thread{0};
    for (int i = 0; i < 1000; ++i) {
        loop.post([&, i] {
            if (!loop.on_owner_thread()) off_thread++;
            std::lock_guard lock(m);
            order.push_back(i);
        });
    }
    EXPECT_FALSE(loop.on_owner_thread());
    loop.stop();
    ASSERT_EQ(order.size(), 1000u);
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[i], i);
    EXPECT_EQ(off_thread.load(), 0);
}

TEST(EventLoopTest, ManyThreadsPostingKeepEachThreadsOrder)
{
    EventLoop loop;
    loop.start();
    constexpr int kThreads = 4, kEach = 2000;
    std::vector<std::vector<int>> seen(kThreads);  // touched only on the loop thread
    std::vector<std::thread> posters;
    for (int t = 0; t < kThreads; ++t) {
        posters.emplace_back([&, t] {
            for (int i = 0; i < kEach; ++i) loop.post([&, t, i] { seen[t].push_back(i); });
        });
    }
    for (auto& p : posters) p.join();
    loop.stop();
    for (int t = 0; t < kThreads; ++t) {
        ASSERT_EQ(seen[t].size(), static_cast<size_t>(kEach));
        for (int i = 0; i < kEach; ++i) ASSERT_EQ(seen[t][i], i);
    }
}

TEST(EventLoopTest, WorkPostedByWorkRunsAfterIt)
{
    EventLoop loop;
    std::vector<std::string> trace;
    loop.post([&] {
        trace.push_back("first");
        loop.post([&] { trace.push_back("third"); });
        trace.push_back("second");
    });
    loop.post([&] { loop.post([&] { loop.stop(); }); });
    loop.run();  // the calling thread is the progress thread until stop()
    EXPECT_EQ(trace, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(EventLoopTest, StopFromTheLoopThreadAndPostAfterStopIsRefused)
{
    EventLoop loop;
    loop.start();
    std::mutex m;
    std::condition_variable cv;
    bool stopped = false;
    loop.post([&] {
        loop.stop();
        std::lock_guard lock(m);
        stopped = true;
        cv.notify_all();
    });
    {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stopped; });
    }
    bool ran = false;
    loop.post([&] { ran = true; });
    loop.stop();  // joins
    EXPECT_FALSE(ran);
    EXPECT_EQ(loop.refused_posts(), 1u);
}

// Work posted after stop() never runs, and that is never silent: the first refusal says so in one
// line, and every refusal is counted.
TEST(EventLoopTest, WorkPostedAfterStopIsRefusedLoudly)
{
    EventLoop loop;
    loop.start();
    int ran = 0;
    loop.post([&] { ran++; });
    loop.stop();
    EXPECT_EQ(ran, 1);
    EXPECT_EQ(loop.refused_posts(), 0u);

    testing::internal::CaptureStderr();
    loop.post([&] { ran++; });
    loop.post([&] { ran++; });
    std::thread other([&] { loop.post([&] { ran++; }); });
    other.join();
    std::string said = testing::internal::GetCapturedStderr();
    EXPECT_EQ(ran, 1);
    EXPECT_EQ(loop.refused_posts(), 3u);
    EXPECT_NE(said.find("warning: work was posted to the progress loop after it stopped: refused"), std::string::npos)
        << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
}
