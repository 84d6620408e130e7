// Every job the DVM knows, by namespace. Jobs are shared_ptr so a posted state transition keeps
// its job alive even if the job is removed from the table meanwhile.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/job.h"

namespace prte::runtime {

using JobPtr = std::shared_ptr<Job>;

class JobTable {
  public:
    // `dvm_nspace` names the DVM; jobs are "<dvm_nspace>@<n>", the daemon job "<dvm_nspace>@0".
    void set_dvm_nspace(std::string dvm_nspace) { dvm_nspace_ = std::move(dvm_nspace); }
    const std::string& dvm_nspace() const { return dvm_nspace_; }

    // Creates and registers a new application job with the next namespace.
    JobPtr create();
    // The daemon job ("@0"), created on first use.
    JobPtr daemon_job();

    // Adds a job made elsewhere (a daemon's copy of a job the master launched).
    void insert(const JobPtr& job);
    JobPtr find(const std::string& nspace) const;
    void remove(const std::string& nspace);
    std::vector<JobPtr> all() const;  // in creation order

    // The job tree: a job spawned by a process (MPI_Comm_spawn) has that process's job for parent;
    // a job a tool spawned (prun) has none and is the root of its tree. Only jobs still in the
    // table count: a child whose parent has gone is a root.
    JobPtr parent_of(const Job& job) const;
    JobPtr root_of(const JobPtr& job) const;
    std::vector<JobPtr> children_of(const Job& job) const;  // in creation order
    // The children that end with `job` (not spawned with a separate lifetime) and have not
    // finished: still running, or ended and waiting for their own children.
    std::vector<JobPtr> unfinished_dependents_of(const Job& job) const;
    size_t size() const { return jobs_.size(); }

    // Whether launching `job` puts more processes on `node` than it has slots, counting every
    // job's: those of `job` placed there and those of other jobs still running there (known to
    // the node's own daemon, which asks as it launches). What PRRTE calls an oversubscribed node,
    // and what MPI libraries are told (PMIX_NODE_OVERSUBSCRIBED, Open MPI's mpi_oversubscribe).
    bool oversubscribes(const Job& job, const Node& node) const;

  private:
    std::string dvm_nspace_ = "prte";
    uint32_t next_ = 1;
    std::map<std::string, JobPtr> jobs_;
    std::vector<std::string> order_;
};

}  // namespace prte::runtime
