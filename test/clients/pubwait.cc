// pubwait: PMIx_Publish / PMIx_Lookup with PMIX_WAIT as the standard has it (an int: wait until
// that many of the keys are published, 0 meaning all), the way OpenPMIx's own examples and the
// programs built on them send it. Run under prun with N >= 2 ranks and a file name:
//  - ranks 1..N-1 look up "pubwait.a" and "pubwait.b" with PMIX_WAIT = 0 (an int), before rank 0
//    has published: the lookup must wait, then return both values; then look up "pubwait.a" and
//    "pubwait.none" with PMIX_WAIT = 1: answered once one of them is there;
//  - rank 0 waits for FILE to appear (the test creates it once the DVM says the lookups wait),
//    then publishes both keys;
//  - all ranks then fence, rank 0 unpublishes, and a lookup without PMIX_WAIT of a key nobody
//    published is PMIX_ERR_NOT_FOUND at once.
// Each rank prints "pubwait rank R ok" at the end; any failure is a one-line message and exit 1.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "client_util.h"

namespace {

const char* program = "pubwait";

void publish(const char* key, const char* value)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Publish(%s) failed: %s", key, PMIx_Error_string(rc));
}

// Looks up `keys` with PMIX_WAIT = `wait` (an int, as the standard types it); returns PMIx's status
// and checks each key found against "value-of-<key>".
pmix_status_t lookup(const char* a, const char* b, const int* wait, int& found)
{
    pmix_pdata_t pdata[2];
    PMIX_PDATA_CONSTRUCT(&pdata[0]);
    PMIX_PDATA_CONSTRUCT(&pdata[1]);
    PMIX_LOAD_KEY(pdata[0].key, a);
    PMIX_LOAD_KEY(pdata[1].key, b);
    pmix_info_t info;
    if (wait) PMIX_INFO_LOAD(&info, PMIX_WAIT, wait, PMIX_INT);
    pmix_status_t rc = PMIx_Lookup(pdata, 2, wait ? &info : nullptr, wait ? 1 : 0);
    if (wait) PMIX_INFO_DESTRUCT(&info);
    found = 0;
    for (pmix_pdata_t& p : pdata) {
        if (p.value.type == PMIX_UNDEF) continue;
        std::string expected = std::string("value-of-") + p.key;
        if (p.value.type != PMIX_STRING || expected != p.value.data.string) {
            prte_test::fail(program, "lookup of %s returned the wrong value", p.key);
        }
        ++found;
    }
    PMIX_PDATA_DESTRUCT(&pdata[0]);
    PMIX_PDATA_DESTRUCT(&pdata[1]);
    return rc;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) prte_test::fail(program, "usage: pubwait FILE");
    pmix_proc_t me = prte_test::init(program);
    int found = 0;
    if (me.rank == 0) {
        for (int t = 0; access(argv[1], F_OK) != 0; ++t) {
            if (t >= 600) prte_test::fail(program, "%s did not appear within 60 seconds", argv[1]);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        publish("pubwait.a", "value-of-pubwait.a");
        publish("pubwait.b", "value-of-pubwait.b");
    } else {
        const int all = 0;
        pmix_status_t rc = lookup("pubwait.a", "pubwait.b", &all, found);
        if (rc != PMIX_SUCCESS || found != 2) {
            prte_test::fail(program, "lookup with PMIX_WAIT 0 returned %s with %d of 2 keys", PMIx_Error_string(rc), found);
        }
        const int one = 1;
        rc = lookup("pubwait.a", "pubwait.none", &one, found);
        if (rc != PMIX_SUCCESS || found != 1) {
            prte_test::fail(program, "lookup with PMIX_WAIT 1 returned %s with %d of 1 key", PMIx_Error_string(rc), found);
        }
    }
    pmix_proc_t all_ranks;
    PMIX_LOAD_PROCID(&all_ranks, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Fence(&all_ranks, 1, nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Fence failed: %s", PMIx_Error_string(rc));
    if (me.rank == 0) {
        char* keys[] = {const_cast<char*>("pubwait.a"), const_cast<char*>("pubwait.b"), nullptr};
        if ((rc = PMIx_Unpublish(keys, nullptr, 0)) != PMIX_SUCCESS) {
            prte_test::fail(program, "PMIx_Unpublish failed: %s", PMIx_Error_string(rc));
        }
    }
    rc = lookup("pubwait.never", "pubwait.nothing", nullptr, found);
    if (rc != PMIX_ERR_NOT_FOUND) prte_test::fail(program, "lookup of unpublished keys returned %s", PMIx_Error_string(rc));
    std::printf("pubwait rank %u ok\n", me.rank);
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
