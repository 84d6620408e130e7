#include "rml/heartbeat.h"

#include <algorithm>

#include "rml/rml.h"

namespace prte::rml {

using std::chrono::milliseconds;

namespace {

double seconds(milliseconds d) { return static_cast<double>(d.count()) / 1000.0; }

}  // namespace

milliseconds Heartbeat::interval_for(milliseconds timeout) { return std::max(milliseconds(10), timeout / 4); }

Heartbeat::Heartbeat(event_base* base, Messenger& messenger, milliseconds timeout, SilentHandler on_silent)
    : messenger_(messenger),
      timeout_(timeout),
      interval_(interval_for(timeout)),
      on_silent_(std::move(on_silent)),
      watch_(timeout, interval_),
      timer_(base, [this] { tick(); })
{
    timer_.arm_periodic(interval_);
    messenger_.verbose()(5, "rml: daemon {}: heartbeat every {:.2f} s to its parent; a child silent for {:.1f} s is lost",
                         messenger_.self(), seconds(interval_), seconds(timeout_));
}

void Heartbeat::heard(runtime::Rank peer)
{
    if (auto silent = watch_.heard(peer, SilenceWatch::Clock::now())) {
        messenger_.verbose()(5, "rml: daemon {}: heard from daemon {} again after {:.1f} s of silence", messenger_.self(),
                             peer, seconds(*silent));
    }
}

// To the parent, over the lifeline (before the wireup, a daemon whose parent is the master has its
// call-home connection): the frame is empty, what matters is that it arrives.
void Heartbeat::beat()
{
    runtime::Rank parent = messenger_.tree().parent();
    if (parent == runtime::kInvalidRank) return;
    if (Status st = messenger_.send_if_connected(parent, tag::heartbeat, {}); !st) {
        messenger_.verbose()(10, "rml: daemon {}: heartbeat to daemon {} not sent: {}", messenger_.self(), parent,
                             st.message());
    }
}

void Heartbeat::tick()
{
    beat();
    auto now = SilenceWatch::Clock::now();
    watch_.watch(messenger_.tree().children(), now);
    SilenceWatch::Findings f = watch_.check(now);
    const auto& verbose = messenger_.verbose();
    if (f.stalled.count() > 0) {
        verbose(1, "rml: daemon {}: its own event loop did not run for {:.1f} s (stopped or busy): that time is not "
                   "counted as its children's silence",
                messenger_.self(), seconds(f.stalled));
    }
    for (const auto& s : f.missed) {
        verbose(5, "rml: daemon {}: missed heartbeats: nothing from daemon {} for {:.1f} s (one due every {:.2f} s, "
                   "lost after {:.1f} s)",
                messenger_.self(), s.rank, seconds(s.silent), seconds(interval_), seconds(timeout_));
    }
    for (const auto& s : f.lost) {
        verbose(1, "rml: daemon {}: nothing from daemon {} for {:.1f} s: past prte_daemon_heartbeat_timeout",
                messenger_.self(), s.rank, seconds(s.silent));
        on_silent_(s.rank, s.silent);
    }
}

}  // namespace prte::rml
