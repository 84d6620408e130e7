// The queue's decisions (job_queue.h): who waits, who is refused, who maps next. Every decision is
// a line at state_base_verbose 2.
#include "elastic/job_queue.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "elastic/admission.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/rmaps/base/rmaps_base.h"

namespace prte::elastic {
namespace {

using runtime::JobPtr;
using runtime::JobState;
using Clock = std::chrono::steady_clock;

bool alive(const JobPtr& job) { return job && runtime::is_alive(job->state) && !job->aborting; }

}  // namespace

JobQueue::JobQueue(runtime::Runtime& rt) : rt_(rt) {}

bool JobQueue::queues(const runtime::Job& job) const { return !job.is_daemon_job && (rt_.settings().queue || job.queue); }

JobQueue::Entry* JobQueue::find(const runtime::Job& job)
{
    for (Entry& e : queue_) {
        if (e.job.get() == &job) return &e;
    }
    return nullptr;
}

void JobQueue::prune()
{
    std::erase_if(queue_, [this](const Entry& e) { return e.job != offered_ && !alive(e.job); });
}

const JobQueue::Entry* JobQueue::blocking() const
{
    if (queue_.empty()) return nullptr;
    if (rt_.settings().admission_strict) return &queue_.front();
    for (const Entry& e : queue_) {
        if (e.passes >= rt_.settings().admission_max_passes) return &e;
    }
    return nullptr;
}

size_t JobQueue::jobs_holding_slots() const
{
    size_t n = 0;
    for (const JobPtr& job : rt_.jobs().all()) {
        if (job->is_daemon_job || !runtime::is_alive(job->state)) continue;
        n += std::any_of(job->procs.begin(), job->procs.end(), [](const auto& p) { return p->node != nullptr; }) ? 1 : 0;
    }
    return n;
}

std::string JobQueue::reason() const { return fmt::format("waiting for slots held by {} job(s)", jobs_holding_slots()); }

void JobQueue::park(runtime::Job& job, bool tell) { begin_wait(rt_, job, runtime::WaitReason::queue, reason(), tell); }

void JobQueue::enqueue(const JobPtr& job)
{
    Entry e{job, next_arrival_++, 0, Clock::now(), nullptr};
    if (job->queue_timeout_seconds > 0) {
        std::string nspace = job->nspace;
        e.timeout = std::make_unique<runtime::LoopTimer>(rt_.loop(), [this, nspace] { timed_out(nspace); });
        e.timeout->arm(std::chrono::seconds(job->queue_timeout_seconds));
    }
    queue_.push_back(std::move(e));
    park(*job, true);
    rt_.state_verbose()(2, "queue: job {} waits for slots held by {} job(s); {} job(s) queued", job->nspace,
                        jobs_holding_slots(), queue_.size());
}

bool JobQueue::hold_for_turn(const JobPtr& job)
{
    if (job->is_daemon_job) return false;
    if (job == offered_) {
        Entry* e = find(*job);
        if (!alive(job) || !e) {
            // Ended (a kill, its --queue-timeout) between its turn and its map: the pass goes on.
            offered_ = nullptr;
            rt_.loop().post([this] { offer_from(0); });
            return true;
        }
        uint64_t arrival = e->arrival;
        rt_.loop().post([this, job, arrival] { after_map(job, arrival); });
        return false;
    }
    prune();
    if (queue_.empty()) return false;
    if (queues(*job)) {
        if (const Entry* first = blocking()) {
            std::string ahead = first->job->nspace;
            int passes = first->passes;
            enqueue(job);
            rt_.state_verbose()(2, "queue: job {} waits behind job {} ({})", job->nspace, ahead,
                                rt_.settings().admission_strict ? std::string("prte_admission_order strict")
                                                                : fmt::format("passed {} time(s)", passes));
            return true;
        }
    }
    // It maps before the jobs waiting now: if it does, it has passed them.
    uint64_t arrival = next_arrival_;
    rt_.loop().post([this, job, arrival] { after_map(job, arrival); });
    return false;
}

bool JobQueue::hold_for_slots(const JobPtr& job, const Status& why)
{
    if (!queues(*job) || why.code() != Errc::out_of_resource) return false;
    // Could it ever fit the DVM as it is? The mapper's own answer, on the nodes with nothing held.
    if (Status idle = rmaps::base::fits_when_idle(*job, rt_.pool()); !idle) {
        rt_.state_verbose()(2, "queue: job {} cannot wait: it could not fit the DVM even with every slot free: {}",
                            job->nspace, idle.message());
        return false;
    }
    if (job == offered_) {
        park(*job, false);  // its turn came too soon: back to its place, already told
        return true;
    }
    enqueue(job);
    return true;
}

// After a job's map step (posted from it): a job that mapped leaves the queue, and has passed every
// job waiting that arrived before it; one offered its turn lets the pass go on.
void JobQueue::after_map(const JobPtr& job, uint64_t arrival)
{
    const bool mapped = alive(job) && !job->waits();
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Entry& e) { return e.job == job; });
    size_t index = static_cast<size_t>(it - queue_.begin());
    if (mapped) {
        for (Entry& e : queue_) {
            if (e.arrival < arrival && e.job != job) ++e.passes;
        }
    }
    bool leaves = it != queue_.end() && (mapped || !alive(job));
    if (leaves) {
        if (mapped) {
            rt_.state_verbose()(2, "queue: job {} maps after {:.1f} s in the queue", job->nspace,
                                std::chrono::duration<double>(Clock::now() - it->since).count());
        }
        queue_.erase(it);
    }
    if (job != offered_) return;
    offered_ = nullptr;
    offer_from(leaves ? index : index + 1);
}

void JobQueue::slots_freed()
{
    if (queue_.empty()) return;
    if (offered_) {
        pass_again_ = true;
        return;
    }
    if (pass_posted_) return;
    pass_posted_ = true;
    rt_.loop().post([this] { start_pass(); });
}

void JobQueue::start_pass()
{
    pass_posted_ = false;
    if (offered_) {
        pass_again_ = true;
        return;
    }
    // Nothing maps while the DVM changes size; the fence coming down calls slots_freed again.
    if (rt_.elastic().fence() != 0 || rt_.shutting_down()) return;
    pass_again_ = false;
    offer_from(0);
}

// Offers the queued jobs from `index` on their turn, one at a time, in arrival order, within the
// admission order's rules; once none is left to offer, the pass ends.
void JobQueue::offer_from(size_t index)
{
    auto free_slots = [this] {
        int64_t n = 0;
        for (const runtime::Node* node : std::as_const(rt_.pool()).nodes()) {
            if (node->daemon_launched && node->state == runtime::NodeState::up) n += node->available_slots();
        }
        return n;
    };
    while (index < queue_.size() && !offered_) {
        Entry& e = queue_[index];
        if (!alive(e.job)) {
            queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(index));
            continue;
        }
        // strict: only the first may map; backfill: none past a job passed too often.
        if (index > 0 && rt_.settings().admission_strict) break;
        bool starving = std::any_of(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(index),
                                    [this](const Entry& w) { return w.passes >= rt_.settings().admission_max_passes; });
        if (starving) break;
        // No slot free at all: no queued job can map (each failed for lack of slots).
        if (free_slots() == 0) break;
        offered_ = e.job;
        end_wait(*e.job);
        rt_.state_verbose()(2, "queue: job {} may map now (place {} of {})", e.job->nspace, index + 1, queue_.size());
        rt_.state().activate_job_state(e.job, JobState::map);
        return;
    }
    if (offered_) return;
    if (pass_again_) slots_freed();
}

void JobQueue::timed_out(const std::string& nspace)
{
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Entry& e) { return e.job->nspace == nspace; });
    if (it == queue_.end()) return;
    JobPtr job = it->job;
    if (job != offered_) queue_.erase(it);  // an offered job leaves from its map step
    if (!alive(job)) return;
    end_wait(*job);
    std::string why = fmt::format("job {} waited {} s in the queue (--queue-timeout) without the slots it needs "
                                  "coming free; it is ended",
                                  nspace, job->queue_timeout_seconds);
    rt_.state_verbose()(2, "queue: {}", why);
    plm::base::terminate_job(job, why, JobState::failed_to_start, 1);
}

std::vector<JobQueue::WaitingView> JobQueue::waiting() const
{
    std::vector<WaitingView> out;
    const std::string why = reason();
    for (const Entry& e : queue_) {
        if (!alive(e.job) || e.job == offered_) continue;
        std::string text = why;
        if (e.passes > 0) text += fmt::format("; passed by {} later job(s)", e.passes);
        out.push_back({e.job->nspace, text, std::chrono::duration<double>(Clock::now() - e.since).count()});
    }
    return out;
}

}  // namespace prte::elastic
