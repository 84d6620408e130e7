// state/dvm: the master's job and process state tables (spec: job-launch-state-machine.txt,
// 7.4.3): the shared launch states from the plm base, plus the master's own callbacks for
// readiness, completion, notification and clean-up, and the process tracking that drives them.
#pragma once

#include "mca/state/state.h"

namespace prte::state::dvm {

class DvmStateModule : public Module {
  public:
    Status install(StateMachine& machine) override;
};

}  // namespace prte::state::dvm
