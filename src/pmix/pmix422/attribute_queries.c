/* Queries for PMIX_QUERY_ATTRIBUTE_SUPPORT (OpenPMIx's `pattrs`, any tool asking which attributes
 * a function honours), repaired for OpenPMIx 4.2.2 (pmix422/repairs.h).
 *
 * What was found: `pattrs --pid <prte's pid> --host PMIx_Query_info` killed the DVM's master with
 * SIGSEGV on PMIx's thread, inside pmix_attrs_query_support. A PMIx 4.2.2 server hands a peer's
 * query to PMIx_Query_info_nb with a record of its own as the callback data; for attribute queries
 * PMIx_Query_info_nb answers locally (src/common/pmix_attributes.c, pmix_attrs_query_support), and
 * that answer calls back with the query's own record as the callback data instead of the caller's
 * (`cd->cbfunc(..., cd, ...)`; its relay path, taken by a tool asking for its server's attributes,
 * passes `cd->cbdata` as it should). The server's callback then takes PMIx's query record for its
 * own and dies. Any process of ours that asked such a query would get the wrong pointer back too.
 *
 * libpmix calls PMIx_Query_info_nb through its PLT, and every prte program has libprte ahead of
 * libpmix in its lookup order, so this definition sees each call, the server's included. Attribute
 * queries go to PMIx with a callback of ours that recognises which pointer it was given (its own
 * record, marked, on the relay path; PMIx's query record, whose cbdata is ours, on the local path)
 * and answers the caller with the caller's own data; every other query goes to PMIx untouched, as
 * does everything when the repairs do not act. */
#define _GNU_SOURCE 1
#include "prte_config.h"

#include "pmix/pmix422/repairs.h"

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmix/pmix422/private.h"

typedef pmix_status_t (*query_nb_fn)(pmix_query_t queries[], size_t nqueries, pmix_info_cbfunc_t cbfunc,
                                     void *cbdata);

/* First in the record, where PMIx's records hold their class pointer, which never has this value. */
#define CALLER_MARK UINT64_C(0x7072746541545452) /* "prteATTR" */

struct caller {
    uint64_t mark;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
};

static void answer_caller(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                          pmix_release_cbfunc_t release, void *release_cbdata)
{
    struct caller *c = (struct caller *) cbdata;
    if (c->mark != CALLER_MARK) c = (struct caller *) ((pmix_query_caddy_t *) cbdata)->cbdata;
    pmix_info_cbfunc_t cbfunc = c->cbfunc;
    void *caller_data = c->cbdata;
    free(c);
    cbfunc(status, info, ninfo, caller_data, release, release_cbdata);
}

static int asks_attribute_support(const pmix_query_t queries[], size_t nqueries)
{
    for (size_t n = 0; n < nqueries; ++n) {
        if (queries[n].keys != NULL && queries[n].keys[0] != NULL &&
            strcmp(queries[n].keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0) {
            return 1;
        }
    }
    return 0;
}

static query_nb_fn pmix_own = NULL;
static pthread_once_t pmix_own_found = PTHREAD_ONCE_INIT;

static void find_pmix_own(void) { pmix_own = (query_nb_fn) dlsym(RTLD_NEXT, "PMIx_Query_info_nb"); }

pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pthread_once(&pmix_own_found, find_pmix_own);
    if (pmix_own == NULL) return PMIX_ERR_NOT_SUPPORTED;
    if (cbfunc == NULL || queries == NULL || prte_pmix422_repairs_state() != NULL ||
        !asks_attribute_support(queries, nqueries)) {
        return pmix_own(queries, nqueries, cbfunc, cbdata);
    }
    struct caller *c = (struct caller *) calloc(1, sizeof(*c));
    if (c == NULL) return PMIX_ERR_NOMEM;
    c->mark = CALLER_MARK;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    pmix_status_t rc = pmix_own(queries, nqueries, answer_caller, c);
    if (rc != PMIX_SUCCESS) free(c);
    return rc;
}

#endif
