// putget: the data exchange every MPI relies on. Each rank Puts a value, Commits, and Fences with
// PMIX_COLLECT_DATA (or, with --direct, without: each Get then fetches the value from the rank's
// daemon, the direct modex); then Gets every other rank's value and checks it. Rank 0 prints
// "putget ok size N"; any failure is a one-line message and exit 1.
#include <string>

#include "client_util.h"

namespace {

const char* kKey = "prte.test.putget";

std::string value_of(pmix_rank_t rank) { return "value-from-rank-" + std::to_string(rank); }

}  // namespace

int main(int argc, char** argv)
{
    // --direct: fence without collecting, so every Get of another node's value is a direct modex.
    bool collect = !(argc > 1 && std::string(argv[1]) == "--direct");
    const char* program = "putget";
    pmix_proc_t me = prte_test::init(program);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    int64_t size = prte_test::get_integer(program, &job, PMIX_JOB_SIZE);

    pmix_value_t value;
    std::string mine = value_of(me.rank);
    PMIX_VALUE_LOAD(&value, mine.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, kKey, &value);
    PMIX_VALUE_DESTRUCT(&value);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Put failed: %s", me.rank, PMIx_Error_string(rc));
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Commit failed: %s", me.rank, PMIx_Error_string(rc));

    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&job, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Fence failed: %s", me.rank, PMIx_Error_string(rc));

    for (int64_t r = 0; r < size; ++r) {
        if (r == me.rank) continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, static_cast<pmix_rank_t>(r));
        pmix_value_t* got = nullptr;
        rc = PMIx_Get(&peer, kKey, nullptr, 0, &got);
        if (rc != PMIX_SUCCESS || !got) {
            prte_test::fail(program, "rank %u: PMIx_Get of rank %lld's value failed: %s", me.rank, (long long)r,
                            PMIx_Error_string(rc));
        }
        std::string expected = value_of(static_cast<pmix_rank_t>(r));
        if (got->type != PMIX_STRING || !got->data.string || expected != got->data.string) {
            prte_test::fail(program, "rank %u: rank %lld's value is '%s', expected '%s'", me.rank, (long long)r,
                            got->type == PMIX_STRING && got->data.string ? got->data.string : "(not a string)",
                            expected.c_str());
        }
        PMIX_VALUE_RELEASE(got);
    }
    if (me.rank == 0) {
        std::printf("putget ok size %lld\n", (long long)size);
        std::fflush(stdout);
    }
    prte_test::finalize(program);
    return 0;
}
