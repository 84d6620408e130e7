#include "mca/state/dvm/state_dvm_procs.h"

#include <utility>

#include "mca/errmgr/base/errmgr_base.h"
#include "mca/state/base/state_base.h"
#include "runtime/runtime.h"

namespace prte::state::dvm {
namespace {

using runtime::JobPtr;
using runtime::JobState;
using runtime::ProcState;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
void activate(const JobPtr& job, JobState state) { rt().state().activate_job_state(job, state); }

// Daemons send their reports again after a tree repair (state/prted): each state of a process
// counts once.
void launched(const JobPtr& job, runtime::Proc& proc)
{
    if (std::exchange(proc.counted_running, true)) return;
    ++job->num_launched;
    if (job->num_launched == 1) activate(job, JobState::started);
    if (static_cast<size_t>(job->num_launched) == job->num_procs() && !job->aborting) activate(job, JobState::running);
}

void registered(const JobPtr& job, runtime::Proc& proc)
{
    if (std::exchange(proc.counted_registered, true)) return;
    ++job->num_reported;
    if (static_cast<size_t>(job->num_reported) == job->num_procs()) activate(job, JobState::registered);
}

// A process is gone once its output has drained and it has been reaped; only then is it counted,
// so no output is lost and no exit status is missed. `reported`: its failure was told already.
void maybe_terminated(const JobPtr& job, runtime::Proc& proc, bool reported = false)
{
    if (!proc.iof_complete || !proc.waitpid_fired || proc.counted_terminated) return;
    bool failed = runtime::is_error(proc.state) || proc.term_signal != 0 || proc.exit_code != 0;
    // A job that asked for restarts (prun --max-restarts) may start it again: not gone, then.
    if (failed && !reported && !runtime::is_error(proc.state) && errmgr::base::module()->restart(job, proc)) return;
    proc.counted_terminated = true;
    ++job->num_terminated;
    if (failed && !job->aborting && !reported) {
        errmgr::base::module()->proc_failed(job, proc, runtime::is_error(proc.state) ? proc.state
                                                                                    : ProcState::term_non_zero);
    }
    if (!runtime::is_error(proc.state)) proc.state = ProcState::terminated;
    if (static_cast<size_t>(job->num_terminated) == job->num_procs()) {
        activate(job, job->aborting ? job->abort_state : JobState::terminated);
    }
}

void track(const JobPtr& job, runtime::Rank rank, ProcState state)
{
    runtime::Proc* proc = job->proc(rank);
    if (!proc) return;
    switch (state) {
    case ProcState::running: launched(job, *proc); break;
    case ProcState::registered: registered(job, *proc); break;
    case ProcState::iof_complete:
        proc->iof_complete = true;
        maybe_terminated(job, *proc);
        break;
    case ProcState::waitpid_fired:
        proc->waitpid_fired = true;
        maybe_terminated(job, *proc);
        break;
    default:
        // An error state (failed to start, called abort, ...): the job is torn down at once; the
        // process is still counted when its pipes close and it is reaped.
        if (std::exchange(proc->counted_error, state) == state) break;  // sent again after a repair
        if (!job->aborting) errmgr::base::module()->proc_failed(job, *proc, state);
        if (proc->pid == 0) {  // never forked: nothing will close or be reaped
            proc->iof_complete = proc->waitpid_fired = true;
        }
        // Counted now if nothing more will come (never forked, or lost with its daemon). A job
        // that carries on after the failure (recovery) must not hear of it twice.
        maybe_terminated(job, *proc, true);
        break;
    }
}

}  // namespace

Status install_proc_states(StateMachine& m)
{
    for (ProcState s : {ProcState::running, ProcState::registered, ProcState::iof_complete, ProcState::waitpid_fired,
                        ProcState::error}) {
        if (Status st = m.add_proc_state(s, "track_procs", track); !st) return st;
    }
    return {};
}

}  // namespace prte::state::dvm
