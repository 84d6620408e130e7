// One model of why a job waits (runtime::WaitReason, runtime/job.h): every admission point of the
// DVM - the launch fence's two boundaries and its test hold (launch_fence.cc), the autoscaler
// (autoscaler.cc), the queue (job_queue.cc) - begins and ends a wait through these two calls, so
// that the job's reason, its state, the log line and what its spawner is told are always one.
// Progress thread only.
#pragma once

#include <string>

#include "runtime/job.h"
#include "runtime/runtime.h"

namespace prte::elastic {

// The job begins to wait, or waits on for a new `reason`: its reason set, its state
// WAITING_FOR_DAEMONS with `detail` in the state log (state_base_verbose 5), and, when it asked
// for a report (--display map, allocation or topo) and `tell`, one line on its spawner's stdout
// saying why ("prte: job <ns> waits: <reason in words>: <detail>"). `tell` false: a wait resumed
// after a turn that came too soon, already told.
void begin_wait(runtime::Runtime& rt, runtime::Job& job, runtime::WaitReason reason, const std::string& detail,
                bool tell = true);
// It is let go: activations move it again.
void end_wait(runtime::Job& job);

}  // namespace prte::elastic
