// The master's launch path: the state callbacks a job runs through from INIT to RUNNING (spec:
// job-launch-state-machine.txt, 7.4.3), shared by every launcher, and the entry points the PMIx
// server uses to submit and terminate jobs. All on the progress thread.
#pragma once

#include <string>
#include <vector>

#include "runtime/state_machine.h"
#include "runtime/job_table.h"

namespace prte::plm::base {

// Submits a job built from a spawn request. It enters the state machine at INIT at once, or when
// the DVM becomes ready if it is still starting (spec 7.4.3.2).
void spawn(const runtime::JobPtr& job);

// Ends a job on request (PMIx job control, prun's ^C, a timeout): its processes are killed and it
// ends in `end_state` with `why` as its message.
void terminate_job(const runtime::JobPtr& job, const std::string& why,
                   runtime::JobState end_state = runtime::JobState::killed_by_cmd, int exit_code = 1);

// What the DVM itself was started with (prte --host / --hostfile), for the daemon job's allocation.
void set_dvm_resources(std::vector<std::string> hosts, std::string hostfile);

// Adds the launch states (INIT .. SEND_LAUNCH_MSG, RUNNING, REGISTERED) and their callbacks.
Status install_launch_states(state::StateMachine& machine);

// Releases the jobs that arrived while the DVM was starting (called from VM_READY).
void release_held_jobs();

}  // namespace prte::plm::base
