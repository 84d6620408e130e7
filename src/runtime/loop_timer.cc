#include "runtime/loop_timer.h"

#include <event2/event.h>

#include <stdexcept>
#include <utility>

#include "runtime/event_loop.h"

namespace prte::runtime {

timeval to_timeval(std::chrono::milliseconds ms)
{
    const auto count = ms.count() < 0 ? 0 : ms.count();
    return timeval{static_cast<time_t>(count / 1000), static_cast<suseconds_t>((count % 1000) * 1000)};
}

// What libevent's callback argument points at: on the heap, so that moving the LoopTimer never
// moves it. The callback is shared so that a firing keeps it alive while the owner, and with it
// this state, is destroyed from inside it. The event exists only while the timer is armed: an
// unarmed timer holds nothing of libevent's, so it may even outlive its loop (a job kept by a
// reference after the runtime has gone); only an armed one must go first.
struct LoopTimer::State {
    event_base* base = nullptr;
    event* ev = nullptr;  // while armed
    bool periodic = false;
    std::shared_ptr<const std::function<void()>> fire;

    void free_event()
    {
        if (ev) event_free(ev);  // cancels it if pending
        ev = nullptr;
    }
    ~State() { free_event(); }
};

LoopTimer::LoopTimer() = default;

LoopTimer::LoopTimer(event_base* base, std::function<void()> fire) : state_(std::make_unique<State>())
{
    state_->base = base;
    state_->fire = std::make_shared<const std::function<void()>>(std::move(fire));
}

LoopTimer::LoopTimer(EventLoop& loop, std::function<void()> fire) : LoopTimer(loop.base(), std::move(fire)) {}

LoopTimer::~LoopTimer() = default;
LoopTimer::LoopTimer(LoopTimer&& other) noexcept = default;
LoopTimer& LoopTimer::operator=(LoopTimer&& other) noexcept = default;

void LoopTimer::arm(std::chrono::milliseconds after) { arm(after, false); }

void LoopTimer::arm_periodic(std::chrono::milliseconds every) { arm(every, true); }

void LoopTimer::arm(std::chrono::milliseconds after, bool periodic)
{
    if (!state_) throw std::logic_error("LoopTimer::arm on a timer bound to no loop");
    State& s = *state_;
    // libevent fixes EV_PERSIST when an event is made: a change of kind takes a new event.
    if (s.ev && s.periodic != periodic) s.free_event();
    if (!s.ev) {
        s.ev = event_new(s.base, -1, periodic ? EV_PERSIST : 0, &LoopTimer::on_fire, &s);
        if (!s.ev) throw std::runtime_error("cannot create a libevent timer");
        s.periodic = periodic;
    }
    const timeval tv = to_timeval(after);
    event_add(s.ev, &tv);  // on a pending event, replaces its timeout
}

void LoopTimer::cancel()
{
    if (state_) state_->free_event();
}

bool LoopTimer::armed() const { return state_ && state_->ev && evtimer_pending(state_->ev, nullptr); }

void LoopTimer::on_fire(int, short, void* arg)
{
    auto* s = static_cast<State*>(arg);
    if (!s->periodic) s->free_event();  // spent; the callback may arm it again
    // Nothing of the state is touched after the call: the callback may have destroyed it.
    std::shared_ptr<const std::function<void()>> fire = s->fire;
    (*fire)();
}

}  // namespace prte::runtime
