// From PMIx names to runtime objects: which job a namespace is, and whether a set of processes
// lives entirely on this node. Progress thread only: they read the job table.
#include <string>

#include "pmix/internal.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

bool proc_is_here(const runtime::Proc& proc)
{
    return proc.node && proc.node->daemon == rt().identity().rank;
}

}  // namespace

bool is_dvm_nspace(const std::string& nspace)
{
    const std::string& dvm = rt().identity().dvm_nspace;
    // The job table names the daemon job "<dvm>@0" (job_table.h); PMIx knows it as "<dvm>".
    return !dvm.empty() && (nspace == dvm || nspace == rt().jobs().dvm_nspace() + "@0");
}

runtime::JobPtr find_job(const std::string& nspace)
{
    if (is_dvm_nspace(nspace)) return rt().jobs().daemon_job();
    return rt().jobs().find(nspace);
}

bool all_local(const pmix_proc_t procs[], size_t nprocs)
{
    for (size_t i = 0; i < nprocs; ++i) {
        runtime::JobPtr job = rt().jobs().find(procs[i].nspace);
        if (!job) return false;
        if (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == PMIX_RANK_LOCAL_PEERS ||
            procs[i].rank == PMIX_RANK_LOCAL_NODE) {
            if (procs[i].rank != PMIX_RANK_WILDCARD) continue;  // by definition on this node
            for (const auto& proc : job->procs) {
                if (!proc_is_here(*proc)) return false;
            }
            continue;
        }
        runtime::Proc* proc = job->proc(procs[i].rank);
        if (!proc || !proc_is_here(*proc)) return false;
    }
    return true;
}

size_t count_here(const pmix_proc_t procs[], size_t nprocs)
{
    size_t here = 0;
    for (size_t i = 0; i < nprocs; ++i) {
        runtime::JobPtr job = rt().jobs().find(procs[i].nspace);
        if (!job) continue;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            for (const auto& proc : job->procs) here += proc_is_here(*proc) ? 1 : 0;
        } else if (runtime::Proc* proc = job->proc(procs[i].rank); proc && proc_is_here(*proc)) {
            ++here;
        }
    }
    return here;
}

void for_each_member(const std::vector<pmix_proc_t>& members,
                     const std::function<void(const pmix_proc_t&, const runtime::Proc&)>& fn)
{
    for (const pmix_proc_t& m : members) {
        runtime::JobPtr job = find_job(m.nspace);
        if (!job) continue;
        for (const auto& proc : job->procs) {
            if (m.rank != PMIX_RANK_WILDCARD && proc->rank != m.rank) continue;
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, m.nspace, proc->rank);
            fn(p, *proc);
        }
    }
}

std::vector<pmix_proc_t> local_procs_of(const std::string& nspace)
{
    std::vector<pmix_proc_t> out;
    runtime::JobPtr job = rt().jobs().find(nspace);
    if (!job) return out;
    for (const auto& proc : job->procs) {
        if (!proc_is_here(*proc)) continue;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace.c_str(), proc->rank);
        out.push_back(p);
    }
    return out;
}

}  // namespace prte::pmix::detail
