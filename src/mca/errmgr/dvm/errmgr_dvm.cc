#include "mca/errmgr/dvm/errmgr_dvm.h"

#include <string.h>

#include <fmt/format.h>

#include "mca/errmgr/base/errmgr_base.h"
#include "mca/odls/base/odls_base.h"
#include "runtime/runtime.h"

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

}  // namespace

void DvmErrmgrModule::proc_failed(const runtime::JobPtr& job, runtime::Proc& proc, ProcState state)
{
    if (job->aborting) return;  // only the first failure decides the outcome
    proc.state = state;
    job->aborting = true;
    job->abort_state = job_state_for(proc, state);
    // A message already set by whoever detected the failure (the launcher's exec error, the PMIx
    // abort text) is more precise than ours; keep it.
    if (job->abort_message.empty()) job->abort_message = describe_failure(*job, proc, state);
    job->exit_code = proc.exit_code != 0 ? proc.exit_code : 1;
    base::framework().verbose()(1, "{}: aborting job {}", job->abort_message, job->nspace);
    odls::base::module()->kill(job);
}

void DvmErrmgrModule::daemon_lost(runtime::Rank daemon, ProcState reason)
{
    // The single-node DVM has no other daemon; the multi-node DVM handles this path.
    base::framework().verbose()(1, "daemon {} lost ({})", daemon, runtime::to_string(reason));
}

}  // namespace prte::errmgr::dvm
