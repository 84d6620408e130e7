// A member that ends before it takes part in a collective (issue 13, "Failure").
//
// Without this, in a job that carries on after a process fails (prun --enable-recovery), or in a
// group spanning jobs when one of them ends, the others waited for ever: on the dead process's own
// node in PMIx (which does not hand a group operation to the host once a member's connection is
// lost), on the other nodes in the DVM's collective (which waited for that node's share). Both now
// end with PMIX_ERR_PROC_TERM_WO_SYNC.
#include <pmix.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/internal.h"
#include "pmix/pmix422_repairs.h"
#include "pmix/server.h"

namespace prte::pmix {
namespace {

// PMIx's thread.
void group_ended(const char* id, int construct, const pmix_proc_t* ended, size_t answered)
{
    detail::verbose()(1, "group {} {}: member {} ended before it took part; {} caller(s) on this node answered {}",
                      id ? id : "?", construct ? "construct" : "destruct", describe(*ended), answered,
                      PMIx_Error_string(PMIX_ERR_PROC_TERM_WO_SYNC));
}

}  // namespace

void process_ended(const runtime::Job& job, runtime::Rank rank, bool abnormally)
{
    if (!detail::server_running()) return;
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job.nspace.c_str(), rank);
    prte_pmix422_end_groups_waiting_for(&proc, PMIX_ERR_PROC_TERM_WO_SYNC, group_ended);
    if (!abnormally) return;
    if (grpcomm::Module* module = grpcomm::base::module()) module->participant_ended(proc);
}

}  // namespace prte::pmix
