// errmgr/dvm: the master's outcome for failures. PRRTE's rule: the first process of a job that
// fails (cannot start, calls abort, is killed by a signal, exits non-zero) ends the whole job; its
// other processes are killed, and the job's exit status and message come from that first failure.
#pragma once

#include "mca/errmgr/errmgr.h"

namespace prte::errmgr::dvm {

class DvmErrmgrModule : public Module {
  public:
    Status init() override { return {}; }
    void proc_failed(const runtime::JobPtr& job, runtime::Proc& proc, runtime::ProcState state) override;
    void daemon_lost(runtime::Rank daemon, runtime::ProcState reason) override;
};

}  // namespace prte::errmgr::dvm
