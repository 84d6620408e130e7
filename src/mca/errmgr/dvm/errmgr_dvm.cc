#include "mca/errmgr/dvm/errmgr_dvm.h"

#include <string.h>

#include <fmt/format.h>

#include "mca/errmgr/base/errmgr_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/daemon_table.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/plm/base/plm_messages.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::errmgr::dvm {
namespace {

using runtime::JobState;
using runtime::ProcState;

std::string node_of(const runtime::Proc& proc) { return proc.node ? proc.node->name : std::string("?"); }

// What a user reads: which rank, where, and how it ended.
std::string describe_failure(const runtime::Job& job, const runtime::Proc& proc, ProcState state)
{
    if (proc.term_signal != 0) {
        return fmt::format("rank {} of job {} on node {} was killed by signal {} ({})", proc.rank, job.nspace,
                           node_of(proc), proc.term_signal, strsignal(proc.term_signal));
    }
    if (state == ProcState::failed_to_start) {
        return fmt::format("rank {} of job {} on node {} failed to start", proc.rank, job.nspace, node_of(proc));
    }
    if (state == ProcState::called_abort) {
        return fmt::format("rank {} of job {} on node {} called abort with status {}", proc.rank, job.nspace,
                           node_of(proc), proc.exit_code);
    }
    return fmt::format("rank {} of job {} on node {} exited with status {}", proc.rank, job.nspace, node_of(proc),
                       proc.exit_code);
}

JobState job_state_for(const runtime::Proc& proc, ProcState state)
{
    if (state == ProcState::failed_to_start) return JobState::failed_to_start;
    if (state == ProcState::called_abort) return JobState::called_abort;
    if (proc.term_signal != 0) return JobState::aborted_by_sig;
    return JobState::non_zero_term;
}

// The PMIx event that names this way of ending (PMIx standard, "process termination" codes).
pmix_status_t failure_event(const runtime::Proc& proc, ProcState state)
{
    if (state == ProcState::failed_to_start) return PMIX_ERR_PROC_FAILED_TO_START;
    if (state == ProcState::called_abort) return PMIX_ERR_PROC_REQUESTED_ABORT;
    if (proc.term_signal != 0) return PMIX_ERR_PROC_ABORTED_BY_SIG;
    return PMIX_ERR_EXIT_NONZERO_TERM;
}

// A job with recovery enabled outlives a process that died or exited non-zero. Not one that
// failed to start (the job never ran as asked), nor a PMIx_Abort, which asks for the job's end.
bool survivable(ProcState state) { return state != ProcState::failed_to_start && state != ProcState::called_abort; }

// A process that exited non-zero, in a job that asked not to treat that as an error
// (--runtime-options error-nonzero-status=false); one killed by a signal still is one.
bool normal_end(const runtime::Job& job, const runtime::Proc& proc, ProcState state)
{
    return !job.error_nonzero_status && survivable(state) && proc.term_signal == 0;
}

}  // namespace

void DvmErrmgrModule::proc_failed(const runtime::JobPtr& job, runtime::Proc& proc, ProcState state)
{
    if (job->aborting) return;  // only the first failure decides the outcome
    proc.state = state;
    std::string what = describe_failure(*job, proc, state);
    // An end the job asked to treat as normal is no failure to tell the others of.
    bool normal = normal_end(*job, proc, state);
    if (!normal) runtime::Runtime::instance().host().notify_proc_failure(*job, proc, failure_event(proc, state), what);
    // --continuous: a process past its restarts leaves the job running, as with recovery.
    if (((job->recoverable || job->continuous) && survivable(state)) || normal) {
        // The first failure is the job's status and message when it ends; the others carry on.
        if (job->exit_code == 0) {
            job->exit_code = proc.exit_code != 0 ? proc.exit_code : 1;
            job->abort_message = what;
        }
        base::framework().verbose()(1, "{}: job {} carries on ({})", what, job->nspace,
                                    job->recoverable  ? "recovery enabled"
                                    : job->continuous ? "continuous"
                                                      : "error-nonzero-status=false");
        return;
    }
    job->aborting = true;
    job->abort_state = job_state_for(proc, state);
    // A message already set by whoever detected the failure (the launcher's exec error, the PMIx
    // abort text) is more precise than ours; keep it.
    if (job->abort_message.empty()) job->abort_message = what;
    job->exit_code = proc.exit_code != 0 ? proc.exit_code : 1;
    base::framework().verbose()(1, "{}: aborting job {}", job->abort_message, job->nspace);
    plm::base::kill_job_procs(job);
}

// PRRTE's autorestart: the same rank again, on its node, by its daemon, while the job allows
// (max_restarts, -1 without limit). Only a process that ran and failed; an end the job treats as
// normal (error-nonzero-status=false) is no failure. Its peers are not told: to them the rank
// goes on (a PMIx program among them sees a new connection of the same rank).
bool DvmErrmgrModule::restart(const runtime::JobPtr& job, runtime::Proc& proc)
{
    if (job->aborting || job->max_restarts == 0) return false;
    if (job->max_restarts > 0 && proc.restarts >= job->max_restarts) return false;
    if (normal_end(*job, proc, ProcState::term_non_zero)) return false;
    std::string what = describe_failure(*job, proc, ProcState::term_non_zero);
    if (Status st = plm::base::restart_proc(job, proc); !st) {
        base::framework().verbose()(1, "{}: cannot restart it ({}); it fails the job as without restarts", what,
                                    st.message());
        return false;
    }
    ++proc.restarts;
    base::framework().verbose()(1, "{}: restarted it (restart {} of {})", what, proc.restarts,
                                job->max_restarts < 0 ? std::string("no limit") : std::to_string(job->max_restarts));
    return true;
}

// A daemon is gone. Outside elastic mode this is PRRTE's outcome: the loss is reported with the
// daemon's rank and node, the jobs that had processes there are aborted with that message, and the
// DVM itself shuts down (every other job is ended, every daemon ordered to exit). A daemon lost
// while the DVM starts ends the start-up with the launcher's account of why.
void DvmErrmgrModule::daemon_lost(runtime::Rank daemon, ProcState reason)
{
    auto& rt = runtime::Runtime::instance();
    std::string why = plm::base::daemons().loss_reason(daemon);
    runtime::Node* node = plm::base::daemons().node_of(daemon);
    // Elastic mode first: a grow target's loss fails its campaign, a shrink target's or an already
    // departed daemon's is ignored (the campaign completes collectively, not per death), and any
    // other daemon leaves while the DVM carries on. It does not fall through to what follows.
    // While the DVM stops, daemons leaving are expected (pending grows were drained already).
    if (!rt.shutting_down() && rt.campaigns().daemon_lost(daemon, reason, why)) return;
    if (!plm::base::daemon_gone(daemon)) return;  // already known
    base::framework().verbose()(1, "daemon {} lost ({}): {}", daemon, runtime::to_string(reason), why);
    if (rt.shutting_down()) return;  // daemons leaving while the DVM stops
    runtime::JobPtr djob = rt.jobs().daemon_job();
    if (!rt.dvm_ready()) {
        if (djob->abort_message.empty()) djob->abort_message = why;
        if (runtime::is_alive(djob->state)) rt.state().activate_job_state(djob, JobState::failed_to_start);
        return;
    }
    output::error("{}; aborting its jobs, and the DVM shuts down (as PRRTE's does when it loses a daemon)", why);
    if (Status st = plm::base::broadcast(rml::tag::daemon_died, plm::msg::encode_ranks({daemon})); !st) {
        output::warning("cannot tell the daemons that daemon {} was lost: {}", daemon, st.message());
    }
    plm::base::end_jobs_on_node(node, why);
    rt.request_shutdown(1, why);
}

}  // namespace prte::errmgr::dvm
