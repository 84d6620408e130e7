#include "elastic/admission.h"

#include <pmix_common.h>

#include <fmt/format.h>

namespace prte::elastic {

void begin_wait(runtime::Runtime& rt, runtime::Job& job, runtime::WaitReason reason, const std::string& detail,
                bool tell)
{
    job.waiting = reason;
    rt.state().mark_job_state(job, runtime::JobState::waiting_for_daemons, detail);
    if (!tell || !(job.reports.map || job.reports.allocation || job.reports.topology || job.reports.cpus)) return;
    std::string line = fmt::format("prte: job {} waits: {}: {}\n", job.nspace, runtime::to_string(reason), detail);
    rt.host().deliver_output(job, PMIX_RANK_UNDEF, PMIX_FWD_STDOUT_CHANNEL, line.data(), line.size());
}

void end_wait(runtime::Job& job) { job.waiting = runtime::WaitReason::none; }

}  // namespace prte::elastic
