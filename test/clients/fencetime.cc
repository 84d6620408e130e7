// fencetime: times PMIx fences across the job (a benchmark client, bench/multinode). Every rank
// fences `N` times (argv[1], default 20) without data, after one warm-up fence with data
// collection; rank 0 prints "fence ranks R mean_us M min_us m".
#include <chrono>
#include <cstdlib>
#include <string>

#include "client_util.h"

int main(int argc, char** argv)
{
    const char* program = "fencetime";
    int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
    if (rounds < 1) rounds = 1;
    pmix_proc_t me = prte_test::init(program);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    int64_t size = prte_test::get_integer(program, &job, PMIX_JOB_SIZE);
    pmix_status_t rc = PMIx_Fence(&job, 1, nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: warm-up fence failed: %s", me.rank, PMIx_Error_string(rc));
    double total = 0, best = 1e18;
    for (int i = 0; i < rounds; ++i) {
        auto start = std::chrono::steady_clock::now();
        rc = PMIx_Fence(&job, 1, nullptr, 0);
        double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: fence failed: %s", me.rank, PMIx_Error_string(rc));
        total += us;
        if (us < best) best = us;
    }
    if (me.rank == 0) std::printf("fence ranks %lld mean_us %.0f min_us %.0f\n", static_cast<long long>(size), total / rounds, best);
    PMIx_Finalize(nullptr, 0);
    return 0;
}
