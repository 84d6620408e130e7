// Where state changes run. The runtime's one progress thread owns all runtime state; work that
// arrives anywhere else is posted to it (DESIGN.md, "Execution model"). The event loop
// implements this; tests use a plain queue so a state table can be driven step by step.
#pragma once

#include <functional>

namespace prte::runtime {

class Dispatcher {
  public:
    virtual ~Dispatcher() = default;
    // Queues `work` to run on the owning thread, after everything queued before it. Never runs
    // it inline, so a state callback that activates the next state returns before that state runs.
    virtual void post(std::function<void()> work) = 0;
    // True when called on the owning thread; state callbacks assert it in debug builds.
    virtual bool on_owner_thread() const = 0;
};

}  // namespace prte::runtime
