// The loop's one timer type (runtime/loop_timer.h): a one-shot fires once, a periodic one until
// cancelled, arming again replaces the last arming, cancelling or destroying it means it never
// fires, and its owner may destroy it from inside its own callback. Each test runs the loop on
// the test's thread until a later "sentinel" timer stops it, so "has not fired" is judged after
// libevent has run every timer due before the sentinel, never after a sleep.
#include <event2/event.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/event_loop.h"
#include "runtime/loop_timer.h"

using namespace std::chrono_literals;
using prte::runtime::EventLoop;
using prte::runtime::LoopTimer;

namespace {

// Stops the loop after `after`, and a guard stops it after 30 s so that a broken timer fails the
// test instead of hanging it.
class Sentinel {
  public:
    Sentinel(EventLoop& loop, std::chrono::milliseconds after)
        : stop_(loop,
                [this, &loop] {
                    stopped_ = true;
                    loop.stop();
                }),
          guard_(loop, [&loop] { loop.stop(); })
    {
        stop_.arm(after);
        guard_.arm(30s);
    }
    void rearm(std::chrono::milliseconds after) { stop_.arm(after); }
    bool stopped() const { return stopped_; }

  private:
    bool stopped_ = false;
    LoopTimer stop_;
    LoopTimer guard_;
};

}  // namespace

TEST(LoopTimerTest, OneShotFiresOnce)
{
    EventLoop loop;
    int fired = 0;
    LoopTimer timer(loop, [&] { ++fired; });
    timer.arm(1ms);
    EXPECT_TRUE(timer.armed());
    Sentinel sentinel(loop, 100ms);
    loop.run();
    EXPECT_TRUE(sentinel.stopped());
    EXPECT_EQ(fired, 1);
    EXPECT_FALSE(timer.armed());
}

TEST(LoopTimerTest, PeriodicFiresUntilCancelled)
{
    EventLoop loop;
    int fired = 0;
    LoopTimer timer;
    timer = LoopTimer(loop, [&] {
        if (++fired == 5) timer.cancel();
    });
    timer.arm_periodic(1ms);
    Sentinel sentinel(loop, 200ms);
    loop.run();
    EXPECT_TRUE(sentinel.stopped());
    EXPECT_EQ(fired, 5);
    EXPECT_FALSE(timer.armed());
}

TEST(LoopTimerTest, PeriodicStaysArmedBetweenFirings)
{
    EventLoop loop;
    std::vector<bool> armed_in_callback;
    LoopTimer timer;
    timer = LoopTimer(loop, [&] {
        armed_in_callback.push_back(timer.armed());
        if (armed_in_callback.size() == 3) loop.stop();
    });
    timer.arm_periodic(1ms);
    Sentinel guard(loop, 30s);
    loop.run();
    EXPECT_EQ(armed_in_callback, (std::vector<bool>{true, true, true}));
}

TEST(LoopTimerTest, DestroyedBeforeItFiresNeverFires)
{
    EventLoop loop;
    bool fired = false;
    auto timer = std::make_unique<LoopTimer>(loop, [&] { fired = true; });
    timer->arm(1ms);
    EXPECT_EQ(loop.armed_timers(), 1u);
    timer.reset();
    EXPECT_EQ(loop.armed_timers(), 0u);
    Sentinel sentinel(loop, 50ms);
    loop.run();
    EXPECT_TRUE(sentinel.stopped());
    EXPECT_FALSE(fired);
}

TEST(LoopTimerTest, CancelledNeverFiresAndCanBeArmedAgain)
{
    EventLoop loop;
    int fired = 0;
    LoopTimer timer(loop, [&] { ++fired; });
    timer.arm(1ms);
    timer.cancel();
    EXPECT_FALSE(timer.armed());
    Sentinel sentinel(loop, 50ms);
    loop.run();
    EXPECT_TRUE(sentinel.stopped());
    EXPECT_EQ(fired, 0);

    timer.arm(1ms);
    sentinel.rearm(50ms);
    loop.run();
    EXPECT_EQ(fired, 1);
}

TEST(LoopTimerTest, ArmingAgainReplacesTheLastArming)
{
    EventLoop loop;
    int fired = 0;
    LoopTimer timer(loop, [&] { ++fired; });
    // Sooner: the first arming (an hour) is gone, the second fires.
    timer.arm(std::chrono::hours(1));
    timer.arm(1ms);
    EXPECT_EQ(loop.armed_timers(), 1u);
    Sentinel sentinel(loop, 100ms);
    loop.run();
    EXPECT_EQ(fired, 1);
    EXPECT_FALSE(timer.armed());

    // Later: the first arming (1 ms) is gone, so nothing has fired when the sentinel stops the loop.
    timer.arm(1ms);
    timer.arm(std::chrono::hours(1));
    sentinel.rearm(50ms);
    loop.run();
    EXPECT_EQ(fired, 1);
    EXPECT_TRUE(timer.armed());

    // A periodic arming replaces a one-shot one, and the other way round.
    timer.arm_periodic(1ms);
    timer.arm(1ms);
    sentinel.rearm(50ms);
    loop.run();
    EXPECT_EQ(fired, 2);
    EXPECT_FALSE(timer.armed());
}

TEST(LoopTimerTest, OwnerDestroyedFromInsideTheCallback)
{
    EventLoop loop;
    struct Owner {
        std::vector<int> seen;
        LoopTimer timer;
    };
    int fired = 0;
    for (bool periodic : {false, true}) {
        auto owner = std::make_unique<Owner>();
        owner->seen = {1, 2, 3};
        owner->timer = LoopTimer(loop, [&fired, &owner] {
            fired += static_cast<int>(owner->seen.size());
            owner.reset();  // the owner, its timer and this callback's own object go
        });
        if (periodic) {
            owner->timer.arm_periodic(1ms);
        } else {
            owner->timer.arm(1ms);
        }
        Sentinel sentinel(loop, 50ms);
        loop.run();
        EXPECT_TRUE(sentinel.stopped());
        EXPECT_EQ(owner, nullptr);
    }
    EXPECT_EQ(fired, 6);  // each once: the periodic one did not fire again after its owner went
    EXPECT_EQ(loop.armed_timers(), 0u);
}

TEST(LoopTimerTest, MovedTimerStaysArmedAndFiresOnce)
{
    EventLoop loop;
    int fired = 0;
    LoopTimer first(loop, [&] { ++fired; });
    first.arm(1ms);
    std::vector<LoopTimer> holders;
    holders.push_back(std::move(first));
    holders.emplace_back();  // may move the first element again
    EXPECT_TRUE(holders[0].armed());
    EXPECT_FALSE(holders[1].armed());
    Sentinel sentinel(loop, 50ms);
    loop.run();
    EXPECT_EQ(fired, 1);
}

TEST(LoopTimerTest, AssigningOverAnArmedTimerCancelsIt)
{
    EventLoop loop;
    bool old_fired = false, new_fired = false;
    LoopTimer timer(loop, [&] { old_fired = true; });
    timer.arm(1ms);
    timer = LoopTimer(loop, [&] { new_fired = true; });
    EXPECT_FALSE(timer.armed());
    EXPECT_EQ(loop.armed_timers(), 0u);
    Sentinel sentinel(loop, 50ms);
    loop.run();
    EXPECT_FALSE(old_fired);
    EXPECT_FALSE(new_fired);
}

// armed_timers() is libevent's count, not LoopTimer's: a timer made by hand is seen too.
TEST(LoopTimerTest, ArmedTimersCountsEveryTimerOnTheLoop)
{
    EventLoop loop;
    EXPECT_EQ(loop.armed_timers(), 0u);
    LoopTimer ours(loop, [] {});
    ours.arm(std::chrono::hours(1));
    event* raw = event_new(loop.base(), -1, 0, [](evutil_socket_t, short, void*) {}, nullptr);
    const timeval tv = prte::runtime::to_timeval(std::chrono::hours(1));
    event_add(raw, &tv);
    EXPECT_EQ(loop.armed_timers(), 2u);
    event_free(raw);
    ours.cancel();
    EXPECT_EQ(loop.armed_timers(), 0u);
}

TEST(LoopTimerTest, MillisecondsToTimeval)
{
    const timeval tv = prte::runtime::to_timeval(2500ms);
    EXPECT_EQ(tv.tv_sec, 2);
    EXPECT_EQ(tv.tv_usec, 500000);
    const timeval zero = prte::runtime::to_timeval(-5ms);
    EXPECT_EQ(zero.tv_sec, 0);
    EXPECT_EQ(zero.tv_usec, 0);
}
