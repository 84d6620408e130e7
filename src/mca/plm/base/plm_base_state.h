// What the plm framework's base keeps while the framework is open, owned by the framework object
// (plm_base.cc; one per process) and reset when it closes: the master's table of daemons and its
// link to them (plm_daemons.cc), the jobs held for a DVM not ready yet (plm_launch.cc), and the
// timeout reports being gathered (plm_timeout.cc).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mca/plm/base/daemon_table.h"
#include "mca/plm/base/plm_timeout.h"
#include "runtime/job_table.h"
#include "runtime/loop_timer.h"

namespace prte::plm::base {

struct BaseState {
    DaemonTable daemons;

    // The master's link to its daemons.
    std::string secret;          // handed to each daemon out of band
    std::string daemon_log_dir;  // prte --debug-daemons-file: one file per daemon there
    // The teardown at shutdown: what runs once every daemon is gone, and the grace period's end.
    std::function<void()> teardown_done;
    runtime::LoopTimer teardown_timer;

    // Jobs that arrived before the DVM was ready (PRRTE's prte_cache), and the DVM's own
    // --host/--hostfile, which the daemon job's allocation reads.
    std::deque<runtime::JobPtr> held_jobs;
    std::vector<std::string> dvm_hosts;
    std::string dvm_hostfile;

    // Timed-out jobs whose report is being gathered (plm_timeout.h), by namespace.
    std::map<std::string, std::unique_ptr<TimeoutReport>> timeout_reports;
};

// The framework object's state. Progress thread (and the main thread before the loop runs).
BaseState& state();

}  // namespace prte::plm::base
