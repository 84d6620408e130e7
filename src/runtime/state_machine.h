// The job and process state machines: ordered tables of (state, callback) and the activation
// that posts a transition onto the progress thread (spec: job-launch-state-machine.txt, 7.4.1).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/dispatcher.h"
#include "runtime/job.h"
#include "runtime/states.h"
#include "util/output.h"
#include "util/status.h"

// In namespace state because the state framework's components fill these tables; it lives on the
// runtime floor because the Runtime owns the machine and every floor above activates states.
namespace prte::state {

using JobPtr = std::shared_ptr<runtime::Job>;
using JobCallback = std::function<void(const JobPtr& job)>;
using ProcCallback = std::function<void(const JobPtr& job, runtime::Rank rank, runtime::ProcState state)>;

class StateMachine {
  public:
    StateMachine(runtime::Dispatcher& dispatcher, const output::VerboseStream& verbose);

    // Adding a state that is already in the table is an error (two owners for one state is a
    // bug); set_*_callback replaces an existing entry's callback deliberately.
    Status add_job_state(runtime::JobState state, std::string callback_name, JobCallback callback);
    Status set_job_state_callback(runtime::JobState state, std::string callback_name, JobCallback callback);
    void remove_job_state(runtime::JobState state);
    Status add_proc_state(runtime::ProcState state, std::string callback_name, ProcCallback callback);
    void remove_proc_state(runtime::ProcState state);

    // Posts the transition: the job's state is set and its callback run on the progress thread,
    // after whatever is already queued. An error state with no entry of its own runs the
    // callback of JobState::error if there is one.
    void activate_job_state(const JobPtr& job, runtime::JobState state);
    void activate_proc_state(const JobPtr& job, runtime::Rank rank, runtime::ProcState state);

    // Sets a passive marker state (WAITING_FOR_DAEMONS) that has no callback, and says so on
    // the verbose stream so an operator can see why a job is not moving.
    void mark_job_state(runtime::Job& job, runtime::JobState state, const std::string& why);

    bool has_job_state(runtime::JobState state) const;
    // The tables, one line per entry, in the order they run (printed at state_base_verbose 5).
    std::string describe() const;

  private:
    struct JobEntry {
        std::string name;
        JobCallback callback;
    };
    struct ProcEntry {
        std::string name;
        ProcCallback callback;
    };

    void run_job_state(const JobPtr& job, runtime::JobState state);
    void run_proc_state(const JobPtr& job, runtime::Rank rank, runtime::ProcState state);

    runtime::Dispatcher& dispatcher_;
    const output::VerboseStream& verbose_;
    std::map<runtime::JobState, JobEntry> job_table_;
    std::map<runtime::ProcState, ProcEntry> proc_table_;
    // Insertion order, which is the order a job normally runs through the table (the numbers
    // are not: VM_READY is 11 and MAP is 5).
    std::vector<runtime::JobState> job_order_;
    std::vector<runtime::ProcState> proc_order_;
};

}  // namespace prte::state
