// The progress thread: a libevent loop that owns all runtime state (DESIGN.md, "Execution model").
// Work from any thread is post()ed to it and runs there in FIFO order; transports add their socket
// events to base() from the loop thread itself.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/dispatcher.h"

struct event_base;
struct event;

namespace prte::runtime {

class EventLoop : public Dispatcher {
  public:
    EventLoop();
    ~EventLoop() override;
    EventLoop(const EventLoop&) = delete;
    EventLoop& operator=(const EventLoop&) = delete;

    // Runs the loop on a thread of its own.
    void start();
    // Runs the loop on the calling thread until stop() is called (from a posted callback or any
    // other thread). For programs whose main thread is the progress thread.
    void run();
    // Ends the loop after the work already posted has run, and joins the thread if start() made one.
    void stop();

    // Work posted after stop() is refused, not run: the runtime is going away. A refusal is never
    // silent: it is counted (refused_posts()) and the first one logs a warning saying so.
    void post(std::function<void()> work) override;
    bool on_owner_thread() const override;
    size_t refused_posts() const;

    // For adding socket events and LoopTimers (runtime/loop_timer.h); touch it only from the loop
    // thread.
    event_base* base() const { return base_; }
    // Timers armed on this loop now, as libevent counts them: every pending event without a file
    // descriptor or signal, whoever made it, so a timer that outlives what it served is seen.
    // Loop thread only.
    size_t armed_timers() const;

  private:
    static void on_wake(int fd, short what, void* arg);
    bool drain_batch();

    event_base* base_ = nullptr;
    event* wake_ = nullptr;
    std::thread thread_;
    std::atomic<std::thread::id> owner_{};
    mutable std::mutex mutex_;
    std::deque<std::function<void()>> queue_;  // guarded by mutex_
    bool stopping_ = false;                    // guarded by mutex_
    size_t refused_ = 0;                       // guarded by mutex_
};

}  // namespace prte::runtime
