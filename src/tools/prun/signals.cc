#include "tools/prun/signals.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>

namespace prte::prun::signals {

namespace {

// Lock-free atomics are safe to touch in a signal handler.
std::atomic<int> interrupts{0};
std::atomic<int> interrupt_signal{0};
std::atomic<int> wake_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free);
const char kSecondInterrupt[] = "prun: error: interrupted again: exiting without waiting for the job to end\n";

void wake()
{
    int fd = wake_fd;
    if (fd < 0) return;
    char c = 1;
    ssize_t ignored = write(fd, &c, 1);
    (void)ignored;
}

void on_interrupt(int sig)
{
    interrupt_signal = sig;
    if (++interrupts >= 2) {
        ssize_t ignored = write(STDERR_FILENO, kSecondInterrupt, sizeof(kSecondInterrupt) - 1);
        (void)ignored;
        _exit(128 + sig);
    }
    wake();
}

}  // namespace

void install()
{
    signal(SIGPIPE, SIG_IGN);  // a closed stdout shows up as EPIPE, handled as "stop writing"
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void wake_through(int fd) { wake_fd = fd; }

int count() { return interrupts; }

int last() { return interrupt_signal; }

Blocked::Blocked()
{
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

Blocked::~Blocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace prte::prun::signals
