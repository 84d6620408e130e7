// The heartbeat's bookkeeping (src/rml/silence_watch.cc): a watched daemon is lost after the
// timeout of silence and only then, once; anything heard restarts its window; missed beats are
// said once per silence; newcomers get a whole window and departed ones are forgotten; and time
// the watcher itself was not running (stopped, busy) is never counted as anyone's silence.
#include "rml/silence_watch.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using prte::rml::SilenceWatch;
using Rank = prte::runtime::Rank;
using ms = std::chrono::milliseconds;
using Silences = std::vector<SilenceWatch::Silence>;

// Timeout 2 s, a check every 500 ms (the heartbeat's quarter).
struct Watch : ::testing::Test {
    SilenceWatch watch{ms(2000), ms(500)};
    SilenceWatch::Clock::time_point t0 = SilenceWatch::Clock::now();
    SilenceWatch::Clock::time_point at(int64_t millis) const { return t0 + ms(millis); }
    // Checks every 500 ms from `from` to `to` (inclusive), hearing from `heard` before each; returns
    // every daemon found lost.
    Silences run(int64_t from, int64_t to, const std::vector<Rank>& heard = {})
    {
        Silences lost;
        for (int64_t t = from; t <= to; t += 500) {
            for (Rank r : heard) watch.heard(r, at(t));
            auto f = watch.check(at(t));
            lost.insert(lost.end(), f.lost.begin(), f.lost.end());
        }
        return lost;
    }
};

TEST_F(Watch, SilentChildIsLostAfterTheTimeoutOnce)
{
    watch.watch({1, 2}, at(0));
    EXPECT_TRUE(run(0, 1500).empty());
    EXPECT_EQ(run(2000, 2000), (Silences{{1, ms(2000)}, {2, ms(2000)}}));
    EXPECT_TRUE(run(2500, 10000).empty()) << "a lost daemon is reported once";
}

TEST_F(Watch, HeardChildIsNeverLost)
{
    watch.watch({1, 2}, at(0));
    EXPECT_EQ(run(0, 10000, {1}), (Silences{{2, ms(2000)}}));
}

TEST_F(Watch, AnythingHeardRestartsTheWindow)
{
    watch.watch({1}, at(0));
    EXPECT_TRUE(run(0, 1500).empty());
    watch.heard(1, at(1900));
    EXPECT_TRUE(run(2000, 3500).empty());
    EXPECT_EQ(run(4000, 4000), (Silences{{1, ms(2100)}}));
}

TEST_F(Watch, MissedBeatsAreSaidOncePerSilence)
{
    watch.watch({1}, at(0));
    EXPECT_TRUE(watch.check(at(500)).missed.empty());
    EXPECT_EQ(watch.check(at(1000)).missed, (Silences{{1, ms(1000)}})) << "two intervals without a beat";
    EXPECT_TRUE(watch.check(at(1500)).missed.empty()) << "said once";
    EXPECT_EQ(watch.heard(1, at(1600)), ms(1600)) << "heard again after being missed";
    EXPECT_EQ(watch.heard(1, at(1700)), std::nullopt) << "an ordinary beat says nothing";
    EXPECT_TRUE(watch.check(at(2000)).missed.empty());
    EXPECT_TRUE(watch.check(at(2500)).missed.empty());
    EXPECT_EQ(watch.check(at(3000)).missed, (Silences{{1, ms(1300)}})) << "a new silence is said again";
}

TEST_F(Watch, NewcomersGetAWholeWindowAndDepartedOnesAreForgotten)
{
    watch.watch({1}, at(0));
    EXPECT_TRUE(run(0, 1500).empty());
    watch.watch({2}, at(1500));  // 1 re-parented or departed, 2 adopted
    EXPECT_EQ(watch.watched(), 1u);
    EXPECT_TRUE(run(2000, 3000).empty()) << "daemon 1 is no longer watched; daemon 2's window began at 1.5 s";
    EXPECT_EQ(run(3500, 3500), (Silences{{2, ms(2000)}}));
    watch.watch({2, 1}, at(3600));  // 1 back (a re-parenting): a whole window again, 2 keeps its state
    EXPECT_TRUE(run(4000, 5500).empty());
    EXPECT_EQ(run(6000, 6000), (Silences{{1, ms(2400)}}));
}

TEST_F(Watch, TheWatchersOwnStallIsNotSilence)
{
    watch.watch({1}, at(0));
    EXPECT_TRUE(run(0, 1000).empty());
    // The watcher's loop did not run from 1 s to 61 s (SIGSTOP, a suspended host): 59.5 s late.
    auto f = watch.check(at(61000));
    EXPECT_EQ(f.stalled, ms(59500));
    EXPECT_TRUE(f.lost.empty()) << "a minute the watcher was not looking is nobody's silence";
    // Counted: daemon 1's second of silence before the stall and the interval in which the next
    // check was due (1.5 s); it is lost at the next check, half a second on.
    EXPECT_EQ(run(61500, 61500), (Silences{{1, ms(2000)}}));
}

TEST_F(Watch, OnTimeChecksAreNoStall)
{
    watch.watch({1}, at(0));
    watch.check(at(500));
    EXPECT_EQ(watch.check(at(1000)).stalled, ms(0));
    EXPECT_EQ(watch.check(at(1900)).stalled, ms(0)) << "up to two intervals late is jitter";
}

}  // namespace
