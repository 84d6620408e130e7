// The ERRMGR (error manager) framework: what to do when a process or a daemon fails.
//
// Single-select: errmgr/dvm on the master, errmgr/prted on daemons. The module is handed the
// failures the state machine and the messaging layer detect; it decides the outcome (abort the
// job with a message naming rank, node and status; in elastic mode, a grow-target loss rolls
// back its campaign; outside it, a daemon loss aborts the jobs that had processes there).
#pragma once

#include <cstdint>
#include <string>

#include "mca/base/component.h"
#include "runtime/job_table.h"
#include "runtime/states.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::errmgr {

// 2: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 3: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// 4: restart (prun --max-restarts, --continuous).
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 4;

class Module : public mca::Module {
  public:
    ~Module() override;

    virtual Status init() = 0;

    // An application process reached an error state (or ended with a non-zero status).
    virtual void proc_failed(const runtime::JobPtr& job, runtime::Proc& proc, runtime::ProcState state) = 0;

    // A process that failed (exited non-zero or was killed) has ended, reaped and its output
    // closed, and no failure of its job was decided yet: true when the module starts it again
    // instead (the job asked for restarts), and proc_failed is then not called. Default: never.
    virtual bool restart(const runtime::JobPtr& job, runtime::Proc& proc);

    // A daemon left the DVM (connection lost, failed to start, failed to connect). Called once per
    // detection; it must tolerate a rank the master has already torn down (spec:
    // collective-shrink-completion.txt, Step 4).
    virtual void daemon_lost(runtime::Rank daemon, runtime::ProcState reason) = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::errmgr
