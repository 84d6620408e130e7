// Bytes sent to a peer that acknowledges them, and the readers paused until it catches up: the
// shape of both output windows, the DVM's towards a tool (output_flow.cc) and a daemon's towards
// the master (output_relay.cc). Progress thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace prte::pmix::detail {

class AckWindow {
  public:
    // Paused beyond `pause_above` unacknowledged bytes; resumed once at most `resume_at` remain.
    AckWindow(uint64_t pause_above, uint64_t resume_at) : pause_above_(pause_above), resume_at_(resume_at) {}

    void sent(uint64_t bytes) { sent_ += bytes; }
    uint64_t acked() const { return acked_; }
    bool backlogged() const { return sent_ - acked_ > pause_above_; }

    // The peer has taken `total` bytes so far (never more than were sent). Runs the waiters, and
    // says so, once few enough remain.
    bool acknowledge(uint64_t total)
    {
        acked_ = std::max(acked_, std::min(total, sent_));
        if (sent_ - acked_ > resume_at_ || waiters_.empty()) return false;
        release();
        return true;
    }

    void wait(std::function<void()> resume) { waiters_.push_back(std::move(resume)); }

    // Runs every waiter: the window is going away, or has drained.
    void release()
    {
        auto wake = std::exchange(waiters_, {});
        for (auto& resume : wake) resume();
    }

  private:
    uint64_t pause_above_;
    uint64_t resume_at_;
    uint64_t sent_ = 0;
    uint64_t acked_ = 0;
    std::vector<std::function<void()>> waiters_;
};

}  // namespace prte::pmix::detail
