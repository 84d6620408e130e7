// prte --daemonize: the command returns once the DVM is ready ("DVM ready" printed by the parent),
// or fails with the DVM's own error message, leaving the DVM running in the background.
#pragma once

namespace prte::tools {

class Daemonizer {
  public:
    // Forks. In the parent, waits for the child's readiness and returns the status the parent must
    // exit with (0 ready, 1 the DVM failed to start); it prints "DVM ready" unless not `announce`
    // (prte --no-ready-msg). In the child (the DVM), returns -1.
    int fork_and_wait(bool announce = true);
    // In the child, once the DVM is ready: tells the parent, and detaches from the terminal
    // (stdout and stderr to /dev/null, unless a log file has taken them already).
    void report_ready(bool logging);

  private:
    int ready_fd_ = -1;
};

}  // namespace prte::tools
