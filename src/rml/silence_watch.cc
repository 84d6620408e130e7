#include "rml/silence_watch.h"

#include <algorithm>

namespace prte::rml {

using std::chrono::duration_cast;

SilenceWatch::SilenceWatch(Duration timeout, Duration interval) : timeout_(timeout), interval_(interval) {}

void SilenceWatch::watch(const std::vector<runtime::Rank>& ranks, Clock::time_point now)
{
    std::map<runtime::Rank, Entry> next;
    for (runtime::Rank r : ranks) {
        auto it = entries_.find(r);
        next[r] = it != entries_.end() ? it->second : Entry{now};
    }
    entries_ = std::move(next);
}

std::optional<SilenceWatch::Duration> SilenceWatch::heard(runtime::Rank rank, Clock::time_point now)
{
    auto it = entries_.find(rank);
    if (it == entries_.end()) return std::nullopt;
    Entry& e = it->second;
    Duration silent = duration_cast<Duration>(now - e.last);
    e.last = now;
    if (!e.missed) return std::nullopt;
    // A lost daemon stays lost (it has been reported; the master decides): only the line changes.
    e.missed = false;
    return silent;
}

SilenceWatch::Findings SilenceWatch::check(Clock::time_point now)
{
    Findings f;
    // Checks more than an interval late: this daemon was itself stopped or busy for the excess.
    // Each window moves on by that much, so only the time it was looking counts.
    if (last_check_ && now - *last_check_ > 2 * interval_) {
        f.stalled = duration_cast<Duration>(now - *last_check_ - interval_);
        for (auto& [rank, e] : entries_) e.last = std::min(now, e.last + f.stalled);
    }
    last_check_ = now;
    for (auto& [rank, e] : entries_) {
        if (e.lost) continue;
        Duration silent = duration_cast<Duration>(now - e.last);
        if (silent >= timeout_) {
            e.lost = e.missed = true;
            f.lost.push_back({rank, silent});
        } else if (silent >= 2 * interval_ && !e.missed) {
            e.missed = true;
            f.missed.push_back({rank, silent});
        }
    }
    return f;
}

}  // namespace prte::rml
