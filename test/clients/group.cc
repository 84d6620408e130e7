// group: a PMIx group of all the job's ranks, on one node. Every rank constructs the group with a
// context id, and destructs it; each prints "group ok rank R ctxid C" so that the test can check
// that every member got the same id.
#include <cstdio>

#include "client_util.h"

int main()
{
    const char* program = "group";
    pmix_proc_t me = prte_test::init(program);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);

    pmix_info_t directive;
    bool yes = true;
    PMIX_INFO_LOAD(&directive, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Group_construct("prte-test-group", &job, 1, &directive, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&directive);
    if (rc != PMIX_SUCCESS) {
        prte_test::fail(program, "rank %u: PMIx_Group_construct failed: %s", me.rank, PMIx_Error_string(rc));
    }
    long long context_id = -1;
    for (size_t i = 0; i < nresults; ++i) {
        int64_t v;
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID) && prte_test::value_to_integer(&results[i].value, v)) {
            context_id = v;
        }
    }
    if (results) PMIX_INFO_FREE(results, nresults);
    if (context_id < 0) prte_test::fail(program, "rank %u: the group has no context id", me.rank);

    rc = PMIx_Group_destruct("prte-test-group", nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        prte_test::fail(program, "rank %u: PMIx_Group_destruct failed: %s", me.rank, PMIx_Error_string(rc));
    }
    std::printf("group ok rank %u ctxid %lld\n", me.rank, context_id);
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
