// A job's time limits, on the master: --timeout (Job::timeout_timer, armed as the launch is sent)
// and --spawn-timeout (Job::spawn_timer, armed at submission, cancelled once the job is running).
// Either ends the job with status ETIMEDOUT (110), as mpirun 4.1 does. When --timeout fires on a
// job that asked for --report-state-on-timeout or --get-stack-traces, what they ask for is
// gathered first: the state, node and pid of every process, one line each, and the stacks the
// daemons take of their live processes (runtime/stack_tracer.h); the report goes to the spawner's
// stderr and the master's log, then the job ends. The wait for the daemons is bounded
// (prte_stack_trace_timeout plus a margin): a daemon or debugger that hangs delays the end, never
// prevents it. All on the progress thread.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rml/types.h"
#include "runtime/job_table.h"
#include "runtime/loop_timer.h"
#include "runtime/stack_tracer.h"

namespace prte::plm::base {

// A timed-out job's report while its stack traces are gathered (plm_base_state.h keeps them).
struct TimeoutReport {
    std::weak_ptr<runtime::Job> job;
    std::string nspace;
    std::string header;                  // why it ends, and the state of its processes
    std::set<runtime::Rank> waiting;     // daemons asked for traces that have not answered
    std::vector<runtime::NodeStackTraces> nodes;  // the answers, in arrival order
    std::unique_ptr<runtime::StackTracer> local;  // the master's own processes
    runtime::LoopTimer bound;            // the end of the wait for the daemons
};

// At submission: --spawn-timeout's timer.
void arm_spawn_timeout(const runtime::JobPtr& job);
// The job is running: its processes started in time.
void cancel_spawn_timeout(runtime::Job& job);
// As the launch is sent: --timeout's timer (once; a job that passes here again keeps its deadline).
void arm_timeout(const runtime::JobPtr& job);

// The master's handler for daemons' stack traces (tag stack_traces).
void on_stack_traces(runtime::Rank from, rml::Payload&& payload);

// The report lines for --report-state-on-timeout, one per process:
// "prte: job <nspace> rank <r>: node <node>, pid <pid>, state <STATE>" (pid 0: never started).
std::string state_report(const runtime::Job& job);

}  // namespace prte::plm::base
