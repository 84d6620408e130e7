// The stacks of a node's live processes, for prun --get-stack-traces: the daemon that owns them
// (the master for its own) runs the debugger on each (prte_stack_trace_debugger, gdb by default:
// "<gdb> -nx -batch -p PID -ex 'thread apply all bt'"), all at once, without blocking its loop,
// each killed after prte_stack_trace_timeout so that a debugger that hangs cannot keep a timed-out
// job from ending (plm/base/plm_timeout.h). Progress thread only.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "runtime/event_loop.h"
#include "runtime/job.h"
#include "runtime/loop_timer.h"
#include "runtime/node.h"

namespace prte::runtime {

// One process's stack as the debugger printed it ("Thread ..." and "#N ..." lines), or, when it
// printed none, why (the debugger's own last lines, or that it was killed at the time limit).
struct StackTrace {
    Rank rank = kInvalidRank;
    int32_t pid = 0;
    std::string text;
};

// A node's answer: a trace per process, or a note saying why there is none (no debugger there).
struct NodeStackTraces {
    std::string node;
    std::string note;
    std::vector<StackTrace> traces;
};

// The debugger to run: `name` when it holds a '/' and is executable, else the first executable
// `name` in $PATH; empty when there is none.
std::string find_debugger(const std::string& name);

class StackTracer {
  public:
    struct Target {
        Rank rank = kInvalidRank;
        pid_t pid = 0;
    };
    using Done = std::function<void(NodeStackTraces traces)>;

    StackTracer(EventLoop& loop, std::string debugger, std::chrono::seconds limit);
    // Debuggers still running are killed with it.
    ~StackTracer();
    StackTracer(const StackTracer&) = delete;
    StackTracer& operator=(const StackTracer&) = delete;

    // Once: starts the debugger on every target; `done` is posted to the loop (never called from
    // here) once each has ended or was killed at the limit, so that it may destroy this tracer.
    void start(const std::string& node, const std::vector<Target>& targets, Done done);

  private:
    struct Attempt;
    void attempt_ended(Attempt& attempt, int wait_status);
    void at_limit();
    void finish_if_done();

    EventLoop& loop_;
    std::string debugger_;
    std::chrono::seconds limit_;
    NodeStackTraces result_;
    std::vector<std::unique_ptr<Attempt>> attempts_;
    size_t running_ = 0;
    bool finished_ = false;
    Done done_;
    LoopTimer limit_timer_;
};

// The job's processes that daemon `daemon` forked and has not reaped yet, by rank.
std::vector<StackTracer::Target> live_processes_on(const Job& job, Rank daemon);

}  // namespace prte::runtime
