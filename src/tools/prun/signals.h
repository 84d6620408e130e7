// Why this file: ^C, SIGTERM and SIGHUP must end the job, not only prun, and a second ^C must get
// the user out even when the DVM no longer answers. A handler may do almost nothing, so it only
// counts, remembers the signal and wakes the main loop; the main loop ends the job (job_control).
//
// A handler takes no argument of ours, so what it touches lives in signals.cc and nowhere else.
#pragma once

#include <signal.h>

namespace prte::prun::signals {

// Ignores SIGPIPE (a closed stdout shows up as EPIPE, handled as "stop writing") and counts
// SIGINT, SIGTERM and SIGHUP; the second of them exits at once with 128 + the signal.
void install();
// Where the handler writes a byte to wake the main loop (JobEvents' pipe); until then it wakes
// nobody, and the main loop sees the count when it looks.
void wake_through(int fd);
// How many of those signals have arrived, and the last of them (0: none yet).
int count();
int last();

// Keeps the signals away from PMIx's threads (created while they are blocked), so the handler's
// wake-up reaches the main thread's poll.
class Blocked {
  public:
    Blocked();
    ~Blocked();
    Blocked(const Blocked&) = delete;
    Blocked& operator=(const Blocked&) = delete;

  private:
    sigset_t saved_;
};

}  // namespace prte::prun::signals
