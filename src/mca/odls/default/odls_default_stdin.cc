#include "mca/odls/default/odls_default_stdin.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <utility>

#include <fmt/format.h>

namespace prte::odls::default_component {
namespace {

// write(2) that reports a reader gone as EPIPE without raising SIGPIPE, whatever the process's
// disposition (prte ignores it, a test or another embedding may not): the signal is blocked on
// this thread around the write, and the one the write raised (thread-directed, so pending here)
// is taken before the mask is restored.
ssize_t write_without_sigpipe(int fd, const char* data, size_t size)
{
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    const bool already_pending = sigismember(&pending, SIGPIPE) == 1;  // someone else's: leave it
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    ssize_t n = ::write(fd, data, size);
    const int saved = errno;
    if (n < 0 && saved == EPIPE && !already_pending) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = saved;
    return n;
}

}  // namespace

Status StdinPipe::push(std::string_view data, bool eof)
{
    if (!open() || eof_) return {};
    if (queued_ + data.size() > kQueueLimit) {
        return {Errc::out_of_resource,
                fmt::format("{} bytes of stdin are already waiting for the process to read them (limit {} MiB)",
                            queued_, kQueueLimit >> 20)};
    }
    if (!data.empty()) {
        queue_.emplace_back(data);
        queued_ += data.size();
    }
    eof_ = eof;
    return {};
}

StdinPipe::Flush StdinPipe::flush()
{
    if (!open()) return Flush::closed;
    while (!queue_.empty()) {
        const std::string& front = queue_.front();
        ssize_t n = write_without_sigpipe(fd_, front.data() + front_written_, front.size() - front_written_);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return Flush::blocked;
        if (n < 0) {
            error_ = errno;
            close();
            return error_ == EPIPE ? Flush::reader_gone : Flush::failed;
        }
        front_written_ += static_cast<size_t>(n);
        queued_ -= static_cast<size_t>(n);
        if (front_written_ == front.size()) {
            queue_.pop_front();
            front_written_ = 0;
        }
    }
    if (!eof_) return Flush::drained;
    close();
    return Flush::closed;
}

void StdinPipe::close()
{
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    queue_.clear();
    front_written_ = 0;
    queued_ = 0;
    eof_ = false;
}

void StdinPipe::when_accepted(Done done)
{
    if (!open() || queued_ <= kHoldBackAbove) {
        done({});
    } else {
        held_.push_back(std::move(done));
    }
}

std::vector<StdinPipe::Done> StdinPipe::take_accepted()
{
    if (open() && queued_ > kHoldBackAbove) return {};
    return std::exchange(held_, {});
}

}  // namespace prte::odls::default_component
