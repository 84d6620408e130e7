// errmgr/dvm: the master's outcome for failures. PRRTE's rule: the first process of a job that
// fails (cannot start, calls abort, is killed by a signal, exits non-zero) ends the whole job; its
// other processes are killed, and the job's exit status and message come from that first failure.
// Unless the job asked for restarts (prun --max-restarts, --continuous): a failed process is then
// started again, same rank on its node, by its daemon, up to the limit; the failure after the last
// restart is the job's (with --continuous, the job carries on without it).
#pragma once

#include "mca/errmgr/errmgr.h"

namespace prte::errmgr::dvm {

class DvmErrmgrModule : public Module {
  public:
    Status init() override { return {}; }
    void proc_failed(const runtime::JobPtr& job, runtime::Proc& proc, runtime::ProcState state) override;
    bool restart(const runtime::JobPtr& job, runtime::Proc& proc) override;
    void daemon_lost(runtime::Rank daemon, runtime::ProcState reason) override;
};

}  // namespace prte::errmgr::dvm
