#include "tools/prun/prterun_handshake.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace prte::prun {

namespace {

// Set by prterun: the descriptor on which it says its DVM is ready (one byte), and the one on
// which we say we have left the DVM (one byte, once PMIx is finalized: prterun then stops the DVM
// while we exit).
constexpr const char* kPrterunReadyFd = "PRTE_PRTERUN_READY_FD";
constexpr const char* kPrterunDoneFd = "PRTE_PRTERUN_DONE_FD";

}  // namespace

PrterunHandshake PrterunHandshake::from_environment()
{
    PrterunHandshake handshake;
    if (const char* fd_text = std::getenv(kPrterunDoneFd)) {
        handshake.done_fd_ = std::atoi(fd_text);
        unsetenv(kPrterunDoneFd);
        fcntl(handshake.done_fd_, F_SETFD, FD_CLOEXEC);
    }
    if (const char* fd_text = std::getenv(kPrterunReadyFd)) {
        handshake.has_ready_fd_ = true;
        handshake.ready_fd_ = std::atoi(fd_text);
        unsetenv(kPrterunReadyFd);
    }
    return handshake;
}

bool PrterunHandshake::wait_for_ready()
{
    char ready = 0;
    ssize_t n;
    while ((n = read(ready_fd_, &ready, 1)) < 0 && errno == EINTR) {
    }
    close(ready_fd_);
    has_ready_fd_ = false;
    return n == 1;
}

void PrterunHandshake::say_done()
{
    if (done_fd_ < 0) return;
    char word = 1;
    (void)!write(done_fd_, &word, 1);
    close(done_fd_);
    done_fd_ = -1;
}

}  // namespace prte::prun
