// A daemon's exit watchdog: a thread of its own, independent of the event loop, that guarantees a
// daemon never outlives its master and never lingers once told to go, even when the progress thread
// is wedged (a PMIx callback that never returns has done exactly that: issue 14, item 1).
//
// It is armed by either of two things, whichever comes first:
//   - the last connection to the master hangs up (seen by poll() on duplicates of their sockets,
//     so the event loop need not run for it to be noticed; a daemon may hold more than one, and
//     one of them closing while another stays is no loss);
//   - the daemon's own shutdown starts (any reason: ordered to exit, lost the master, a signal).
// Once armed, the daemon has `prte_daemon_exit_timeout` seconds to finish its orderly exit. If it is
// still running then, the watchdog kills every process this daemon started (their process groups,
// with SIGKILL), removes the daemon's session directory (an orderly exit would have), says so in
// one line on stderr, and ends the daemon with _exit(1).
#pragma once

#include <chrono>
#include <string>

namespace prte::prted::exit_watchdog {

// Starts the thread. `timeout` is the grace an armed daemon gets before it is ended; `session_dir`
// is removed when it is.
void start(std::chrono::milliseconds timeout, std::string session_dir);

// Watches this socket (a connection to the master): when it and every other one watched have hung
// up, the watchdog is armed. Takes a duplicate, so the messenger closing its own descriptor later
// changes nothing here. Thread-safe.
void watch_master_socket(int fd);

// The daemon's shutdown has begun. Thread-safe; later calls keep the first reason and deadline.
void arm(const std::string& reason);

// The orderly exit is done (main is about to return): stop the thread.
void stop();

}  // namespace prte::prted::exit_watchdog
