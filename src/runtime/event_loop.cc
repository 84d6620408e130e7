#include "runtime/event_loop.h"

#include <event2/event.h>
#include <event2/thread.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "util/output.h"

namespace prte::runtime {
namespace {

// libevent must be told to use pthread locking before the first base is created, so that
// event_active() from another thread is safe.
void enable_libevent_threads()
{
    static const bool enabled = [] { return evthread_use_pthreads() == 0; }();
    if (!enabled) throw std::runtime_error("libevent has no pthreads support (evthread_use_pthreads failed)");
}

}  // namespace

EventLoop::EventLoop()
{
    enable_libevent_threads();
    base_ = event_base_new();
    if (!base_) throw std::runtime_error("cannot create the libevent base");
    wake_ = event_new(base_, -1, EV_PERSIST, &EventLoop::on_wake, this);
    event_add(wake_, nullptr);
}

EventLoop::~EventLoop()
{
    stop();
    event_free(wake_);
    event_base_free(base_);
}

void EventLoop::start()
{
    thread_ = std::thread([this] { run(); });
}

void EventLoop::run()
{
    owner_.store(std::this_thread::get_id());
    // The wake event has no fd, so without this flag libevent would see nothing to wait for and return.
    event_base_loop(base_, EVLOOP_NO_EXIT_ON_EMPTY);
    while (drain_batch()) {
    }  // anything posted before stop() still runs
    owner_.store(std::thread::id{});
}

void EventLoop::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    event_base_loopexit(base_, nullptr);
    if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) thread_.join();
}

void EventLoop::post(std::function<void()> work)
{
    bool wake = false;
    size_t refused = 0;
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            refused = ++refused_;
        } else {
            wake = queue_.empty();
            queue_.push_back(std::move(work));
        }
    }
    if (refused == 1) {
        output::warning("work was posted to the progress loop after it stopped: refused, it will not run "
                        "(further refusals are only counted)");
    }
    if (wake) event_active(wake_, EV_READ, 0);
}

size_t EventLoop::refused_posts() const
{
    std::lock_guard lock(mutex_);
    return refused_;
}

size_t EventLoop::armed_timers() const
{
    // Gathered first and asked after: libevent holds the base's lock (not recursive) while it
    // walks, and event_pending() takes it.
    std::vector<const event*> without_fd;
    event_base_foreach_event(
        base_,
        [](const event_base*, const event* ev, void* arg) {
            if (event_get_fd(ev) == -1) static_cast<std::vector<const event*>*>(arg)->push_back(ev);
            return 0;
        },
        &without_fd);
    return std::count_if(without_fd.begin(), without_fd.end(),
                         [](const event* ev) { return event_pending(ev, EV_TIMEOUT, nullptr) != 0; });
}

bool EventLoop::on_owner_thread() const { return owner_.load() == std::this_thread::get_id(); }

void EventLoop::on_wake(int, short, void* arg) { static_cast<EventLoop*>(arg)->drain_batch(); }

// Takes the whole queue at once so posting is never blocked by running work. Work the batch posts
// lands in the fresh queue and activates the wake event again, so socket events get their turn
// between batches instead of waiting behind a callback that keeps posting.
bool EventLoop::drain_batch()
{
    std::deque<std::function<void()>> batch;
    {
        std::lock_guard lock(mutex_);
        batch.swap(queue_);
    }
    for (auto& work : batch) work();
    return !batch.empty();
}

}  // namespace prte::runtime
