// abort: rank 1 (rank 0 when alone) calls PMIx_Abort(7, "test abort"); the others wait in a fence
// that never completes, for the DVM to end them. The job should end with status 7 and the message.
// Exits 1 with a message if the abort returns or the fence completes.
#include <unistd.h>

#include "client_util.h"

int main()
{
    const char* program = "abort";
    pmix_proc_t me = prte_test::init(program);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    int64_t size = prte_test::get_integer(program, &job, PMIX_JOB_SIZE);
    pmix_rank_t aborter = size > 1 ? 1 : 0;

    if (me.rank == aborter) {
        pmix_status_t rc = PMIx_Abort(7, "test abort", nullptr, 0);
        prte_test::fail(program, "rank %u: PMIx_Abort returned: %s", me.rank, PMIx_Error_string(rc));
    }
    // The aborting rank never joins, so this fence can only end by the DVM killing us, or by its
    // own timeout (a DVM that failed to act).
    pmix_info_t info;
    int timeout = 60;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_status_t rc = PMIx_Fence(&job, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    prte_test::fail(program, "rank %u: the job was not ended after rank %u aborted (fence returned %s)", me.rank,
                    aborter, PMIx_Error_string(rc));
}
