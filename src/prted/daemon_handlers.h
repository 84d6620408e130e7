// A daemon's command handler: what it does with the messages the master sends (wireup, launch,
// kill, cleanup, exit, daemons that died). All on the progress thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "runtime/loop_timer.h"
#include "runtime/stack_tracer.h"

namespace prte::prted {

// What the handlers keep between messages. Owned by the daemon's main, alive while the loop runs,
// and gone before the loop is: its timers with it.
struct HandlerState {
    // A shrink's target leaves after prte_elastic_leave_timeout even if no connection closes.
    runtime::LoopTimer leave_fallback;
    // Debuggers taking a timed-out job's stacks (prun --get-stack-traces), each until it answers.
    std::map<uint64_t, std::unique_ptr<runtime::StackTracer>> stack_tracers;
    uint64_t next_stack_tracer = 0;
};

// Registers the handlers with the messenger and routes this node's output to the master.
void install_handlers(HandlerState& state);

// The daemon's orderly exit: kill every local process, and stop the loop once all are reaped.
void begin_shutdown();

}  // namespace prte::prted
