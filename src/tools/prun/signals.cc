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
// The forwarded signals, in order of arrival: a handler takes a slot by the write count and
// fills it; the main loop empties the slots in order, stopping at one not filled yet (its
// handler wakes the loop again once it is).
constexpr unsigned kQueued = 64;
std::atomic<int> queue[kQueued];
std::atomic<unsigned> queue_written{0};
unsigned queue_read = 0;  // the main loop's alone
static_assert(std::atomic<unsigned>::is_always_lock_free);
// What Blocked keeps away from PMIx's threads.
sigset_t caught;
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

void on_forwarded(int sig)
{
    unsigned slot = queue_written.fetch_add(1);
    queue[slot % kQueued] = sig;
    wake();
}

}  // namespace

void install()
{
    signal(SIGPIPE, SIG_IGN);  // a closed stdout shows up as EPIPE, handled as "stop writing"
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&caught);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        sigaction(sig, &sa, nullptr);
        sigaddset(&caught, sig);
    }
}

void forward(const std::vector<int>& signals)
{
    struct sigaction sa {};
    sa.sa_handler = on_forwarded;
    sa.sa_flags = SA_RESTART;  // prun's own reads and writes carry on; poll() still wakes
    sigemptyset(&sa.sa_mask);
    for (int sig : signals) {
        sigaction(sig, &sa, nullptr);
        sigaddset(&caught, sig);
    }
}

int next_forwarded()
{
    if (queue_read == queue_written.load()) return 0;
    int sig = queue[queue_read % kQueued].exchange(0);
    if (sig == 0) return 0;  // its handler has taken the slot but not filled it yet
    ++queue_read;
    return sig;
}

void wake_through(int fd) { wake_fd = fd; }

int count() { return interrupts; }

int last() { return interrupt_signal; }

Blocked::Blocked()
{
    pthread_sigmask(SIG_BLOCK, &caught, &saved_);
}

Blocked::~Blocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace prte::prun::signals
