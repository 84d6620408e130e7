#include "runtime/state_machine.h"

#include <cassert>

#include <fmt/format.h>

namespace prte::state {

StateMachine::StateMachine(runtime::Dispatcher& dispatcher, const output::VerboseStream& verbose)
    : dispatcher_(dispatcher), verbose_(verbose)
{
}

Status StateMachine::add_job_state(runtime::JobState state, std::string callback_name, JobCallback callback)
{
    if (job_table_.count(state)) {
        return {Errc::internal, fmt::format("job state {} already has callback {}", runtime::to_string(state),
                                            job_table_[state].name)};
    }
    job_table_[state] = {std::move(callback_name), std::move(callback)};
    job_order_.push_back(state);
    return {};
}

Status StateMachine::set_job_state_callback(runtime::JobState state, std::string callback_name, JobCallback callback)
{
    auto it = job_table_.find(state);
    if (it == job_table_.end()) {
        return {Errc::not_found, fmt::format("job state {} is not in the table", runtime::to_string(state))};
    }
    it->second = {std::move(callback_name), std::move(callback)};
    return {};
}

void StateMachine::remove_job_state(runtime::JobState state)
{
    job_table_.erase(state);
    std::erase(job_order_, state);
}

Status StateMachine::add_proc_state(runtime::ProcState state, std::string callback_name, ProcCallback callback)
{
    if (proc_table_.count(state)) {
        return {Errc::internal, fmt::format("proc state {} already has callback {}", runtime::to_string(state),
                                            proc_table_[state].name)};
    }
    proc_table_[state] = {std::move(callback_name), std::move(callback)};
    proc_order_.push_back(state);
    return {};
}

void StateMachine::remove_proc_state(runtime::ProcState state)
{
    proc_table_.erase(state);
    std::erase(proc_order_, state);
}

bool StateMachine::has_job_state(runtime::JobState state) const { return job_table_.count(state) != 0; }

void StateMachine::activate_job_state(const JobPtr& job, runtime::JobState state)
{
    dispatcher_.post([this, job, state] { run_job_state(job, state); });
}

void StateMachine::activate_proc_state(const JobPtr& job, runtime::Rank rank, runtime::ProcState state)
{
    dispatcher_.post([this, job, rank, state] { run_proc_state(job, rank, state); });
}

void StateMachine::run_job_state(const JobPtr& job, runtime::JobState state)
{
#ifdef PRTE_DEBUG_CHECKS
    assert(dispatcher_.on_owner_thread());
#endif
    // Late activations (posted before the job began to wait, or ended) must not move it on: a
    // waiting job moves only when what holds it lets it go, an ended job never comes back to life.
    if (runtime::is_alive(state) && (job->waits() || !runtime::is_alive(job->state))) {
        verbose_(5, "job {}: {} dropped: the job is {}", job->nspace, runtime::to_string(state),
                 job->waits() ? runtime::to_string(job->waiting) : runtime::to_string(job->state));
        return;
    }
    auto it = job_table_.find(state);
    if (it == job_table_.end() && runtime::is_error(state)) it = job_table_.find(runtime::JobState::error);
    job->state = state;
    if (it == job_table_.end()) {
        verbose_(1, "job {}: no callback for {}; state set, nothing run", job->nspace, runtime::to_string(state));
        return;
    }
    verbose_(5, "job {} -> {} ({})", job->nspace, runtime::to_string(state), it->second.name);
    it->second.callback(job);
}

void StateMachine::run_proc_state(const JobPtr& job, runtime::Rank rank, runtime::ProcState state)
{
#ifdef PRTE_DEBUG_CHECKS
    assert(dispatcher_.on_owner_thread());
#endif
    auto it = proc_table_.find(state);
    if (it == proc_table_.end() && runtime::is_error(state)) it = proc_table_.find(runtime::ProcState::error);
    if (rank < job->procs.size()) job->procs[rank]->state = state;
    if (it == proc_table_.end()) {
        verbose_(1, "proc {}.{}: no callback for {}", job->nspace, rank, runtime::to_string(state));
        return;
    }
    verbose_(5, "proc {}.{} -> {} ({})", job->nspace, rank, runtime::to_string(state), it->second.name);
    it->second.callback(job, rank, state);
}

void StateMachine::mark_job_state(runtime::Job& job, runtime::JobState state, const std::string& why)
{
    job.state = state;
    verbose_(5, "job {} -> {} ({})", job.nspace, runtime::to_string(state), why);
}

std::string StateMachine::describe() const
{
    std::string out = "job state machine:\n";
    for (runtime::JobState state : job_order_) {
        out += fmt::format("  {:3d} {:<40} {}\n", static_cast<int>(state), runtime::to_string(state),
                           job_table_.at(state).name);
    }
    out += "proc state machine:\n";
    for (runtime::ProcState state : proc_order_) {
        out += fmt::format("  {:3d} {:<40} {}\n", static_cast<int>(state), runtime::to_string(state),
                           proc_table_.at(state).name);
    }
    return out;
}

}  // namespace prte::state
