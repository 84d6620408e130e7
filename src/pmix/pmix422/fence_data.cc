// PMIx 4.2.2 files a fence's collected data under the wrong processes when the fence names several
// namespaces and some node taking part hosts no process of one of them (issue 32; found with
// test/clients/multins, read in 4.2.2's src/server/pmix_server_ops.c and gds_base_fns.c):
//
//  - each server numbers its contributors by a "relative rank": their rank plus the sizes of the
//    namespaces before theirs in the collective's namespace list;
//  - that list holds only the namespaces with processes on that server (new_tracker skips one
//    registered with no local process), so two servers number the same process differently, and
//    a server whose list has one namespace files every contributor under it. A child's data was
//    read back as its parent's, and a parent's as another child's.
//
// Where that can happen the DVM hands PMIx the fence's outcome without the collected data, which
// PMIx accepts (it then stores nothing); each PMIx_Get of another process's data is then answered
// by the direct modex (remote_services.cc), from the process's own server, which is always right.
// A fence over one namespace, or whose every node hosts processes of every namespace named, keeps
// its data.
#include "pmix/pmix422/fence_data.h"

#include <map>
#include <set>
#include <string>

#include "runtime/runtime.h"

namespace prte::pmix::detail {

bool fence_data_misfiled_by_pmix422(const std::vector<pmix_proc_t>& procs)
{
    std::set<std::string> nspaces;
    for (const pmix_proc_t& p : procs) nspaces.insert(p.nspace);
    if (nspaces.size() < 2) return false;

    const runtime::JobTable& jobs = runtime::Runtime::instance().jobs();
    // For each daemon hosting a participant, the namespaces it has processes of.
    std::map<runtime::Rank, std::set<std::string>> hosted;
    std::map<std::string, runtime::JobPtr> job_of;
    for (const std::string& ns : nspaces) {
        runtime::JobPtr job = jobs.find(ns);
        if (!job) return true;  // a job we do not know: nothing says its nodes agree
        job_of[ns] = job;
        for (const auto& proc : job->procs) {
            if (proc->node) hosted[proc->node->daemon].insert(ns);
        }
    }
    std::set<runtime::Rank> taking_part;
    for (const pmix_proc_t& p : procs) {
        const runtime::Job& job = *job_of.at(p.nspace);
        for (const auto& proc : job.procs) {
            if ((p.rank == PMIX_RANK_WILDCARD || p.rank == proc->rank) && proc->node) taking_part.insert(proc->node->daemon);
        }
    }
    for (runtime::Rank daemon : taking_part) {
        if (hosted[daemon].size() != nspaces.size()) return true;
    }
    return false;
}

}  // namespace prte::pmix::detail
