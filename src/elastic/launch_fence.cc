// The launch fence's two hold points and its release (spec: job-launch-state-machine.txt 7.4.8.4;
// shrink-campaign-fence-tracking.txt): a job meets the map boundary while any campaign is under
// way and the launch boundary while a shrink is; when the fence comes down it maps, launches on
// its mapping, or is remapped onto the survivors.
#include <fmt/format.h>

#include "elastic/admission.h"
#include "elastic/campaign_engine.h"
#include "mca/rmaps/base/rmaps_base.h"

namespace prte::elastic {
namespace {

using runtime::JobPtr;
using runtime::JobState;

bool on_departed_node(const runtime::Job& job)
{
    for (const auto& p : job.procs) {
        if (p->node && (p->node->daemon == runtime::kInvalidRank || p->node->state == runtime::NodeState::down ||
                        p->node->state == runtime::NodeState::departing)) {
            return true;
        }
    }
    return false;
}

}  // namespace

void CampaignEngine::park(std::deque<runtime::ParkedJob>& where, const JobPtr& job, bool where_is_launch)
{
    begin_wait(rt_, *job, where_is_launch ? runtime::WaitReason::fence_at_launch : runtime::WaitReason::fence_at_map,
               fmt::format("parked at the {} boundary: launch fence {}, {} grow(s) and {} shrink(s) in progress",
                           where_is_launch ? "launch" : "map", state_.fence(), state_.grows().size(),
                           state_.shrinks().size()));
    where.push_back({job, state_.campaign_ids()});
}

// spec: shrink-campaign-fence-tracking.txt, Step 4 (and the parent plan's fence release): jobs
// held at the launch boundary launch on their mapping, or are remapped onto the survivors when a
// departed node was in it; jobs held at the map boundary go on to map onto the nodes there are now.
void CampaignEngine::fence_release()
{
    if (state_.fence() != 0) return;
    // Jobs waiting for nodes have their turn before the jobs parked meanwhile (arrival order).
    autoscaler_.admit_next();
    queue_.slots_freed();  // a grow may have brought the slots queued jobs wait for
    auto launch = std::exchange(state_.held_at_launch(), {});
    auto mapping = std::exchange(state_.held_at_map(), {});
    const output::VerboseStream& verbose = rt_.state_verbose();
    for (auto& parked : launch) {
        JobPtr job = parked.job;
        end_wait(*job);
        if (!runtime::is_alive(job->state) || job->aborting) continue;
        if (on_departed_node(*job)) {
            verbose(5, "job {}: released from the launch boundary; remapped onto the surviving nodes", job->nspace);
            rmaps::base::unmap_job(*job);
            rt_.state().activate_job_state(job, JobState::map);
        } else {
            verbose(5, "job {}: released from the launch boundary; launching on its mapping", job->nspace);
            rt_.state().activate_job_state(job, JobState::launch_apps);
        }
    }
    for (auto& parked : mapping) {
        JobPtr job = parked.job;
        end_wait(*job);
        if (!runtime::is_alive(job->state) || job->aborting) continue;
        verbose(5, "job {}: released from the map boundary", job->nspace);
        rt_.state().activate_job_state(job, JobState::map);
    }
}

void CampaignEngine::lower_fence(uint32_t n)
{
    if (state_.lower_fence(n)) fence_release();
}

// A campaign has started: jobs held for the test hook go on (and meet the real hold points).
void CampaignEngine::campaign_started()
{
    for (auto& job : std::exchange(test_held_, {})) {
        end_wait(*job);
        if (runtime::is_alive(job->state) && !job->aborting) rt_.state().activate_job_state(job, JobState::launch_apps);
    }
}

bool CampaignEngine::hold_at_map(const JobPtr& job)
{
    if (!state_.enabled() || state_.fence() == 0 || job->is_daemon_job) return false;
    park(state_.held_at_map(), job, false);
    return true;
}

bool CampaignEngine::hold_at_launch(const JobPtr& job)
{
    if (!state_.enabled() || job->is_daemon_job) return false;
    // Each job once: one already held is in test_held_once_ too.
    if (rt_.settings().test_hold_launch && !job->waits() && test_held_once_.insert(job->nspace).second) {
        begin_wait(rt_, *job, runtime::WaitReason::test_hold,
                   "held at the launch boundary until the next size change (prte_test_hold_launch)");
        test_held_.push_back(job);
        return true;
    }
    if (state_.shrinks().empty()) return false;
    park(state_.held_at_launch(), job, true);
    return true;
}

}  // namespace prte::elastic
