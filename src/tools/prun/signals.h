// Why this file: ^C, SIGTERM and SIGHUP must end the job, not only prun, and a second ^C must get
// the user out even when the DVM no longer answers; the signals of --forward-signals (by default
// TSTP, USR1, USR2, ABRT, ALRM, CONT) must reach every process of the job as themselves, prun
// carrying on. A handler may do almost nothing, so it only counts or queues the signal and wakes
// the main loop; the main loop ends the job or asks the DVM to signal it (job_control).
//
// A handler takes no argument of ours, so what it touches lives in signals.cc and nowhere else.
#pragma once

#include <signal.h>

#include <vector>

namespace prte::prun::signals {

// Ignores SIGPIPE (a closed stdout shows up as EPIPE, handled as "stop writing") and counts
// SIGINT, SIGTERM and SIGHUP; the second of them exits at once with 128 + the signal.
void install();
// Catches `signals` (--forward-signals) so that they no longer act on prun itself (TSTP does not
// stop it, USR1 does not kill it): each arrival is queued for next_forwarded(). Signals not
// listed keep their default effect on prun.
void forward(const std::vector<int>& signals);
// The oldest forwarded signal not yet taken, 0 when none is waiting: in order of arrival, so that
// TSTP then CONT leaves the job running. At most 64 wait; beyond that the oldest are lost.
int next_forwarded();
// Where the handler writes a byte to wake the main loop (JobEvents' pipe); until then it wakes
// nobody, and the main loop sees the count when it looks.
void wake_through(int fd);
// How many of those signals have arrived, and the last of them (0: none yet).
int count();
int last();

// Keeps the signals (those of install() and forward()) away from PMIx's threads (created while they are blocked), so the handler's
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
