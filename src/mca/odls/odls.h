// The ODLS (on-node daemon launch subsystem) framework: starts, watches and stops the
// application processes of one node (spec: job-launch-state-machine.txt, step 14).
//
// Single-select. Every daemon (the master too) has one. It forks and execs each local process
// with the environment PMIx_server_setup_fork gives plus the app's, binds it, forwards its stdout
// and stderr to the PMIx server (which delivers them to the tools that asked), feeds the stdin a
// tool pushes to the job's stdin target (job.stdin_target; the others read /dev/null), reaps it,
// and reports each step through the process state machine:
//   RUNNING         forked (proc.pid set)        FAILED_TO_START  exec failed (message set)
//   IOF_COMPLETE    both output pipes closed     WAITPID_FIRED    reaped (proc.exit_code set)
// Threading: everything on the progress thread; child output and SIGCHLD arrive as loop events.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job_table.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::odls {

// 2: write_stdin. A component built for another version is refused at load (its vtable differs).
// 3: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 4: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
// 5: release_job() (what a module wrote for a job, prun --preload-binary/--preload-files, goes).
inline constexpr uint32_t kInterfaceVersion = 5;

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

    // Called once per write_stdin, on the progress thread, possibly before write_stdin returns;
    // never after finalize(), which drops those still held (the daemon is going away).
    using StdinDone = std::function<void(const Status&)>;

    // Queues `data` for the stdin of local process `rank` of the job; `eof` closes that stdin once
    // everything before it is written. Never blocks, never drops data a live reader will read.
    // `done` says when the data was accepted, which is held back while much is still queued: a
    // tool that waits for it before sending more (prun does) is slowed to the pace the process
    // reads at. Data for a process that cannot read it (not a stdin target, not local, exited,
    // stdin closed) is dropped with success; an error means it was refused (too much queued).
    virtual void write_stdin(const runtime::JobPtr& job, runtime::Rank rank, std::string_view data, bool eof,
                             StdinDone done) = 0;

    // The job has ended and is forgotten on this node: what the module keeps or wrote for it goes
    // (its preloaded files, odls/base/odls_base_preload.h). Optional.
    virtual void release_job(const runtime::JobPtr& job) {}

    // Local processes not yet reaped (all jobs).
    virtual size_t live_processes() const = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::odls
