// The STATE framework: the job and process state machines.
//
// Single-select: state/dvm on the master, state/prted on daemons. A module installs its tables
// of (state, callback) into the StateMachine the Runtime owns (runtime/state_machine.h); everything else —
// activation, posting onto the progress thread, verbose tracing — is the runtime's. Numbers and
// names of the states: runtime/states.h (spec: job-launch-state-machine.txt).
#pragma once

#include <cstdint>

#include "mca/base/component.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::state {

// 2: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 3: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 3;

class StateMachine;

class Module : public mca::Module {
  public:
    ~Module() override;

    // Adds this module's job and process tables. Other frameworks add theirs afterwards (the
    // selected plm adds LAUNCH_DAEMONS, errmgr adds the error states).
    virtual Status install(StateMachine& machine) = 0;
    virtual void finalize() noexcept {}
};

}  // namespace prte::state
