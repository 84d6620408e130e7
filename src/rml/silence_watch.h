// The heartbeat's bookkeeping (prte_daemon_heartbeat_timeout): which daemons this one watches (its
// children in the routing tree), when each was last heard from, and which have been silent too
// long. Pure - the time is passed in - so that it is unit-tested (test/unit/silence_watch_test.cc);
// rml/heartbeat.h runs it on the event loop.
//
// "Silent" means: nothing at all arrived from that daemon (a heartbeat or any other bytes, even
// part of a long frame) while this daemon was itself running. A daemon busy sending is heard; one
// whose event loop is stopped, wedged or frozen is not. If this daemon's own checks come late (its
// loop was itself stopped or busy), the time it was not looking is not counted against anyone:
// otherwise a master suspended for a minute would declare every child lost on waking.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include "runtime/node.h"

namespace prte::rml {

class SilenceWatch {
  public:
    using Clock = std::chrono::steady_clock;
    using Duration = std::chrono::milliseconds;

    struct Silence {
        runtime::Rank rank;
        Duration silent;
        bool operator==(const Silence&) const = default;
    };
    struct Findings {
        std::vector<Silence> missed;  // newly past two heartbeat intervals (said once per silence)
        std::vector<Silence> lost;    // newly past the timeout (said once per daemon)
        Duration stalled{0};          // how long this daemon itself was not checking (0: on time)
    };

    // Checks run every `interval`; a daemon silent for `timeout` is lost.
    SilenceWatch(Duration timeout, Duration interval);

    // The daemons to watch from now on. A newcomer starts with a whole window; one no longer
    // listed (departed, re-parented) is forgotten.
    void watch(const std::vector<runtime::Rank>& ranks, Clock::time_point now);
    // Something arrived from `rank`. When its silence had been reported as missed beats, returns
    // how long it lasted (for the "heard again" line).
    std::optional<Duration> heard(runtime::Rank rank, Clock::time_point now);
    // The periodic check.
    Findings check(Clock::time_point now);

    size_t watched() const { return entries_.size(); }

  private:
    struct Entry {
        Clock::time_point last;
        bool missed = false;
        bool lost = false;
    };
    Duration timeout_;
    Duration interval_;
    std::optional<Clock::time_point> last_check_;
    std::map<runtime::Rank, Entry> entries_;
};

}  // namespace prte::rml
