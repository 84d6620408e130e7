// Process tracking on the master: counts launches, registrations and terminations, and moves the
// job on when a count completes (spec 7.4.4).
#pragma once

#include "runtime/state_machine.h"

namespace prte::state::dvm {

Status install_proc_states(StateMachine& machine);

}  // namespace prte::state::dvm
