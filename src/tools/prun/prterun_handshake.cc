#include "tools/prun/prterun_handshake.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

#include "util/output.h"
#include "util/strings.h"

namespace prte::prun {

namespace {

// Set by prterun: the descriptor on which it says its DVM is ready (one byte), and the one on
// which we say we have left the DVM (one byte, once PMIx is finalized: prterun then stops the DVM
// while we exit).
constexpr const char* kPrterunReadyFd = "PRTE_PRTERUN_READY_FD";
constexpr const char* kPrterunDoneFd = "PRTE_PRTERUN_DONE_FD";

// The descriptor `name` holds, taken out of the environment; none when unset, and none, with a
// warning, when it is not a descriptor number (read as 0 it would make stdin the handshake's pipe).
std::optional<int> take_descriptor(const char* name)
{
    const char* text = std::getenv(name);
    if (!text) return std::nullopt;
    std::optional<int64_t> fd = util::parse_int(text);
    if (!fd || *fd < 0 || *fd > INT_MAX) {
        output::warning("{}='{}' is not a file descriptor: ignored (prterun sets it; unset it to run prun alone)", name,
                        text);
        fd.reset();
    }
    unsetenv(name);  // after the warning: `text` points into the environment
    if (!fd) return std::nullopt;
    return static_cast<int>(*fd);
}

}  // namespace

PrterunHandshake PrterunHandshake::from_environment()
{
    PrterunHandshake handshake;
    if (std::optional<int> fd = take_descriptor(kPrterunDoneFd)) {
        handshake.done_fd_ = *fd;
        fcntl(handshake.done_fd_, F_SETFD, FD_CLOEXEC);
    }
    if (std::optional<int> fd = take_descriptor(kPrterunReadyFd)) {
        handshake.has_ready_fd_ = true;
        handshake.ready_fd_ = *fd;
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
