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
    jobs_.erase(nspace);
    std::erase(order_, nspace);
}

std::vector<JobPtr> JobTable::all() const
{
    std::vector<JobPtr> out;
    for (const auto& n : order_) out.push_back(jobs_.at(n));
    return out;
}

}  // namespace prte::runtime
