#include "tools/prun/stdin_forwarder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace prte::prun {

namespace {

// Whether prun can forward its stdin at all: it is open, and not a terminal we do not own
// (reading it in the background would stop us with SIGTTIN).
bool stdin_is_forwardable()
{
    if (fcntl(STDIN_FILENO, F_GETFD) < 0) return false;
    return !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

}  // namespace

void StdinForwarder::decide(const StdinTarget& target)
{
    forwarding_ = target.kind != StdinTarget::none && stdin_is_forwardable();
}

void StdinForwarder::start(const std::string& nspace, const StdinTarget& target)
{
    if (!forwarding_) return;
    pmix_rank_t rank =
        target.kind == StdinTarget::all ? PMIX_RANK_WILDCARD : static_cast<pmix_rank_t>(target.value);
    PMIX_LOAD_PROCID(&target_, nspace.c_str(), rank);
    buffer_.resize(64 * 1024);
}

void StdinForwarder::forward_chunk()
{
    ssize_t n = read(STDIN_FILENO, buffer_.data(), buffer_.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n < 0) n = 0;  // unreadable: treat as the end of input
    chunk_.bytes = n > 0 ? buffer_.data() : nullptr;
    chunk_.size = static_cast<size_t>(n);
    if (n == 0) done_ = true;
    {
        std::lock_guard<std::mutex> lock(events_.mutex);
        events_.push_pending = true;
    }
    pmix_status_t rc = PMIx_IOF_push(&target_, 1, &chunk_, nullptr, 0, on_pushed, &events_);
    if (rc != PMIX_SUCCESS) {
        std::lock_guard<std::mutex> lock(events_.mutex);
        events_.push_pending = false;
        events_.push_status = rc;
    }
}

void StdinForwarder::wait_for_push_answer(std::chrono::milliseconds limit)
{
    if (!events_.wait_until(limit, [this] { return !events_.push_pending; })) {
        trace_(1, "the DVM did not answer our last stdin push");
    }
}

}  // namespace prte::prun
