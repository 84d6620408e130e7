// jobinfo: what the DVM tells a process about itself. Prints
//   rank R of N local L node NR host H app A
// (or, with the argument "universe", "jobinfo universe U size N": PMIX_UNIV_SIZE and PMIX_JOB_SIZE;
// with "oversubscribed", "jobinfo rank R oversubscribed yes|no": PMIX_NODE_OVERSUBSCRIBED, asked
// as Open MPI 5 asks, with the wildcard rank)
// and exits 0; exits 1 with a one-line message when PMIx_Init or any PMIx_Get fails.
#include "client_util.h"

int main(int argc, char** argv)
{
    const char* program = "jobinfo";
    pmix_proc_t me = prte_test::init(program);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);

    int64_t job_size = prte_test::get_integer(program, &job, PMIX_JOB_SIZE);
    int64_t universe_size = prte_test::get_integer(program, &job, PMIX_UNIV_SIZE);
    int64_t local_size = prte_test::get_integer(program, &job, PMIX_LOCAL_SIZE);
    int64_t local_rank = prte_test::get_integer(program, &me, PMIX_LOCAL_RANK);
    int64_t node_rank = prte_test::get_integer(program, &me, PMIX_NODE_RANK);
    int64_t appnum = prte_test::get_integer(program, &me, PMIX_APPNUM);
    std::string host = prte_test::get_string(program, &me, PMIX_HOSTNAME);

    if (me.rank >= job_size) prte_test::fail(program, "rank %u is not below the job size %lld", me.rank, (long long)job_size);
    if (universe_size < job_size) {
        prte_test::fail(program, "universe size %lld is below the job size %lld", (long long)universe_size, (long long)job_size);
    }
    if (local_rank >= local_size) {
        prte_test::fail(program, "local rank %lld is not below the local size %lld", (long long)local_rank, (long long)local_size);
    }
    if (argc > 1 && std::string(argv[1]) == "oversubscribed") {
        pmix_info_t optional;
        PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, nullptr, PMIX_BOOL);
        pmix_value_t* value = nullptr;
        pmix_status_t rc = PMIx_Get(&job, PMIX_NODE_OVERSUBSCRIBED, &optional, 1, &value);
        bool yes = rc == PMIX_SUCCESS && value && value->type == PMIX_BOOL && value->data.flag;
        if (value) PMIX_VALUE_RELEASE(value);
        std::printf("jobinfo rank %u oversubscribed %s\n", me.rank, yes ? "yes" : "no");
    } else if (argc > 1 && std::string(argv[1]) == "universe") {
        std::printf("jobinfo universe %lld size %lld\n", (long long)universe_size, (long long)job_size);
    } else {
        std::printf("rank %u of %lld local %lld node %lld host %s app %lld\n", me.rank, (long long)job_size,
                    (long long)local_rank, (long long)node_rank, host.c_str(), (long long)appnum);
    }
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
