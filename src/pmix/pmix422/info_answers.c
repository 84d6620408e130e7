/* The host's answer to a query, handed to OpenPMIx 4.2.2 on its own thread (pmix422/repairs.h).
 *
 * What was found: the host answers a PMIx_Query_info upcall by calling the callback PMIx gave it,
 * which PMIx allows from any thread, and prte answers on its own event loop's thread. 4.2.2's
 * callback (query_cbfunc, src/server/pmix_server.c) then packs the reply right there, on the
 * caller's thread (its buffers, its locks), and queues it for its progress thread, which sends it.
 * ThreadSanitizer reports the two threads racing inside PMIx (a buffer malloc'd on ours and written
 * out by PMIx's send handler; a lock made on ours and taken on PMIx's), in about 1 run in 3 of a
 * test whose clients query through a daemon. Later OpenPMIx shifts that callback's work onto its
 * own thread first ("need to thread-shift this callback as it accesses global data"); this does the
 * same for 4.2.2: the callback is called on PMIx's thread. */
#define _GNU_SOURCE 1
#include "prte_config.h"

#include "pmix/pmix422/repairs.h"

#include <stdlib.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include "pmix/pmix422/private.h"

struct info_answer {
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    pmix_release_cbfunc_t release;
    void *release_cbdata;
};

static void answer(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct info_answer *a = (struct info_answer *) arg;
    a->cbfunc(a->status, a->info, a->ninfo, a->cbdata, a->release, a->release_cbdata);
    free(a);
}

int prte_pmix422_answer_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t cbfunc,
                             void *cbdata, pmix_release_cbfunc_t release, void *release_cbdata)
{
    if (cbfunc == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    struct info_answer *a = (struct info_answer *) calloc(1, sizeof(*a));
    if (a == NULL) return 0;
    a->status = status;
    a->info = info;
    a->ninfo = ninfo;
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    a->release = release;
    a->release_cbdata = release_cbdata;
    /* PMIx's event base takes events from any thread. */
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, answer, a, &prte_pmix422_now) != 0) {
        free(a);
        return 0;
    }
    return 1;
}

#else

int prte_pmix422_answer_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t cbfunc,
                             void *cbdata, pmix_release_cbfunc_t release, void *release_cbdata)
{
    (void) status;
    (void) info;
    (void) ninfo;
    (void) cbfunc;
    (void) cbdata;
    (void) release;
    (void) release_cbdata;
    return 0;
}

#endif
