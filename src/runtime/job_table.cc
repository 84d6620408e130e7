#include "runtime/job_table.h"

#include <algorithm>

namespace prte::runtime {

JobPtr JobTable::create()
{
    auto job = std::make_shared<Job>();
    job->nspace = dvm_nspace_ + "@" + std::to_string(next_++);
    jobs_[job->nspace] = job;
    order_.push_back(job->nspace);
    return job;
}

JobPtr JobTable::daemon_job()
{
    std::string nspace = dvm_nspace_ + "@0";
    if (auto found = find(nspace)) return found;
    auto job = std::make_shared<Job>();
    job->nspace = nspace;
    job->is_daemon_job = true;
    jobs_[nspace] = job;
    order_.insert(order_.begin(), nspace);
    return job;
}

void JobTable::insert(const JobPtr& job)
{
    if (!jobs_.count(job->nspace)) order_.push_back(job->nspace);
    jobs_[job->nspace] = job;
}

JobPtr JobTable::find(const std::string& nspace) const
{
    auto it = jobs_.find(nspace);
    return it == jobs_.end() ? nullptr : it->second;
}

void JobTable::remove(const std::string& nspace)
{
    // A job is forgotten once it has ended: nothing of it may fire any more, even while a
    // reference keeps the object itself alive a while.
    if (auto it = jobs_.find(nspace); it != jobs_.end()) {
        it->second->timeout_timer.cancel();
        it->second->spawn_timer.cancel();
    }
    jobs_.erase(nspace);
    std::erase(order_, nspace);
}

std::vector<JobPtr> JobTable::all() const
{
    std::vector<JobPtr> out;
    for (const auto& n : order_) out.push_back(jobs_.at(n));
    return out;
}

JobPtr JobTable::parent_of(const Job& job) const
{
    if (!job.originator) return nullptr;
    JobPtr parent = find(job.originator->nspace);
    return parent && parent.get() != &job ? parent : nullptr;
}

JobPtr JobTable::root_of(const JobPtr& job) const
{
    JobPtr root = job;
    // Bounded by the table's size: namespaces are never reused, so the chain cannot loop, but a
    // corrupt originator must not hang the progress thread.
    for (size_t depth = 0; depth < jobs_.size(); ++depth) {
        JobPtr parent = parent_of(*root);
        if (!parent) break;
        root = parent;
    }
    return root;
}

std::vector<JobPtr> JobTable::children_of(const Job& job) const
{
    std::vector<JobPtr> out;
    for (const auto& n : order_) {
        const JobPtr& candidate = jobs_.at(n);
        if (candidate.get() != &job && candidate->originator && job.nspace == candidate->originator->nspace) {
            out.push_back(candidate);
        }
    }
    return out;
}

std::vector<JobPtr> JobTable::unfinished_dependents_of(const Job& job) const
{
    std::vector<JobPtr> out;
    for (const JobPtr& child : children_of(job)) {
        if (!child->outlives_parent && (is_alive(child->state) || child->awaiting_children)) out.push_back(child);
    }
    return out;
}

bool JobTable::oversubscribes(const Job& job, const Node& node) const
{
    if (node.slots <= 0) return false;  // no slot count to exceed
    size_t count = 0;
    for (const auto& p : job.procs) count += p->node == &node ? 1 : 0;
    for (const auto& [nspace, other] : jobs_) {
        if (other.get() == &job || other->is_daemon_job) continue;
        for (const auto& p : other->procs) {
            if (p->node == &node && p->pid > 0 && !p->waitpid_fired) ++count;
        }
    }
    return count > static_cast<size_t>(node.slots);
}

}  // namespace prte::runtime
