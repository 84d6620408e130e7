// The one timer of our event loop (docs/architecture.md, "Timers"): every timer the runtime arms on
// the progress thread's loop is a LoopTimer owned by what it serves, so that destroying the owner
// cancels it. One-shot or periodic, re-armable (arming again replaces the last arming), in
// milliseconds. PMIx's own thread keeps its timers (src/pmix/pmix422/).
//
// Touch a LoopTimer only on the thread that runs its loop. Its callback may destroy the timer (or
// its owner) and may re-arm or cancel it. It holds a libevent event only while armed, so an armed
// timer must go before its loop, an unarmed one need not.
#pragma once

#include <sys/time.h>

#include <chrono>
#include <functional>
#include <memory>

struct event_base;
struct event;

namespace prte::runtime {

class EventLoop;

// The one ms -> timeval conversion, for libevent calls that take a timeval (bufferevent timeouts).
timeval to_timeval(std::chrono::milliseconds ms);

class LoopTimer {
  public:
    // Unbound: armed() is false and cancel() does nothing; give it a loop by assigning a bound one.
    LoopTimer();
    LoopTimer(event_base* base, std::function<void()> fire);
    LoopTimer(EventLoop& loop, std::function<void()> fire);
    ~LoopTimer();
    // Movable, so that an owner kept in a container or moved keeps its timer; libevent holds the
    // timer's state, which never moves. Assigning over an armed timer cancels it.
    LoopTimer(LoopTimer&& other) noexcept;
    LoopTimer& operator=(LoopTimer&& other) noexcept;
    LoopTimer(const LoopTimer&) = delete;
    LoopTimer& operator=(const LoopTimer&) = delete;

    // Fires once, `after` from now.
    void arm(std::chrono::milliseconds after);
    // Fires every `every` from now until cancelled.
    void arm_periodic(std::chrono::milliseconds every);
    void cancel();
    bool armed() const;
    bool bound() const { return state_ != nullptr; }

  private:
    struct State;
    void arm(std::chrono::milliseconds after, bool periodic);
    static void on_fire(int fd, short what, void* arg);
    std::unique_ptr<State> state_;
};

}  // namespace prte::runtime
