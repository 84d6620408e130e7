// The ODLS (on-node daemon launch subsystem) framework: starts, watches and stops the
// application processes of one node (spec: job-launch-state-machine.txt, step 14).
//
// Single-select. Every daemon (the master too) has one. It forks and execs each local process
// with the environment PMIx_server_setup_fork gives plus the app's, binds it, forwards its stdout
// and stderr to the PMIx server (which delivers them to the tools that asked), reaps it, and
// reports each step through the process state machine:
//   RUNNING         forked (proc.pid set)        FAILED_TO_START  exec failed (message set)
//   IOF_COMPLETE    both output pipes closed     WAITPID_FIRED    reaped (proc.exit_code set)
// Threading: everything on the progress thread; child output and SIGCHLD arrive as loop events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job_table.h"
#include "util/status.h"

namespace prte::odls {

inline constexpr uint32_t kInterfaceVersion = 1;

class Module : public mca::Module {
  public:
    ~Module() override;

    virtual Status init() = 0;

    // Starts the job's processes that the map places on this node (`ranks`). Returns an error
    // only when nothing could be attempted; per-process failures go through the state machine.
    virtual Status launch(const runtime::JobPtr& job, const std::vector<runtime::Rank>& ranks) = 0;

    // Sends `signal` to every live local process of the job (nullptr: of every job).
    virtual void signal(const runtime::JobPtr& job, int signal) = 0;

    // Terminates every live local process of the job (nullptr: of every job): SIGTERM, then
    // SIGKILL after a grace period; each is still reaped and reported as usual.
    virtual void kill(const runtime::JobPtr& job) = 0;

    // Local processes not yet reaped (all jobs).
    virtual size_t live_processes() const = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::odls
