// The PLM (process lifecycle management) framework: launches and terminates daemons.
//
// Single-select. The selected module owns the LAUNCH_DAEMONS state (spec:
// job-launch-state-machine.txt, 7.4.3 step 5): it works out which nodes of the daemon job need a
// daemon, starts them (over ssh, or through a resource manager's launcher), and lets the state
// machine park at DAEMONS_LAUNCHED until they call home. Daemon reports, the wireup and the
// launch of applications are the base's, shared by every launcher.
//
// Threading: every entry point runs on the progress thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::plm {

// 2: daemon_reported.
// 3: runtime::Node gained scheduler_job (the job a resource manager's launcher starts a daemon in).
// 4: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 5: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 5;

class Module : public mca::Module {
  public:
    ~Module() override;

    virtual Status init() = 0;

    // Starts a daemon on every node in `nodes` (nodes without one). Failures to start are
    // reported later through the daemon-loss path with the node name and the launcher's stderr.
    virtual Status launch_daemons(runtime::Job& daemon_job, const std::vector<runtime::Node*>& nodes) = 0;

    // Forcibly ends the given daemons (a grow rolled back before they wired up), without
    // waiting for them to answer on the message layer.
    virtual Status kill_daemons(const std::vector<runtime::Rank>& ranks) = 0;

    // A daemon this module started has called home: it no longer counts as in flight.
    virtual void daemon_reported(runtime::Rank) {}

    virtual void finalize() noexcept {}
};

}  // namespace prte::plm
