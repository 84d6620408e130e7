/* The host's answer to a tool's connection, made safe for OpenPMIx 4.2.2 (pmix422/repairs.h).
 *
 * What was found, in PMIx 4.2.2's ptl_base_connection_hdlr.c: the answer reaches process_cbfunc,
 * which sends the tool its status, name and the server's name, then completes the records. Every
 * failure there (the tool gone, so a send fails: "PMIX ERROR: UNREACHABLE ... line 495"; or the
 * host refusing the tool) jumps to one error path that
 *  - releases the connection record, whose destructor drops the only reference to the namespace
 *    record PMIx made for a self-started tool, and then
 *  - takes that freed record off pmix_globals.nspaces, where it never was, and releases it again.
 * The master died of SIGSEGV there (bench/chaos: a palloc killed during its handshake), and a
 * refusal could not work at all. Besides, cnct_cbfunc reads the name it is given even for a
 * refusal, so a refusal needs one.
 *
 * The repair does, before the answer, what process_cbfunc's success path would do to those
 * records (the namespace record named and listed, with the reference the list owns; the rank
 * record made) and marks the connection as one whose records exist (PMIX_TOOL_CLIENT /
 * PMIX_LAUNCHER_CLIENT, the only thing process_cbfunc reads the flag for). The success path then
 * leaves the records as upstream would have made them, and the error path's releases and removal
 * become balanced. One defect stays: a send failing after the last stage (the credential's
 * verdict) closes the socket twice; the window is one send. */
#define _GNU_SOURCE 1
#include "prte_config.h"

#include "pmix/pmix422/repairs.h"

#include <stdlib.h>
#include <string.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include <poll.h>

#include "pmix/pmix422/private.h"
#include "src/mca/ptl/base/ptl_base_handshake.h"

struct tool_answer {
    pmix_status_t status;
    pmix_proc_t name;
    pmix_tool_connection_cbfunc_t cbfunc;
    void *cbdata;
    prte_pmix422_tool_hung_up_fn hung_up; /* testing only: answer once the tool has gone */
    int tries;
};

/* A connection PMIx's handshake code made the records of itself, not one the host registered. */
static int self_started(const pmix_pending_connection_t *pnd)
{
    return pnd->flag != PMIX_TOOL_CLIENT && pnd->flag != PMIX_LAUNCHER_CLIENT;
}

/* What process_cbfunc's success path does to the records, done beforehand (see above). */
static void complete_records(pmix_pending_connection_t *pnd, const pmix_proc_t *name)
{
    pmix_peer_t *peer = (pmix_peer_t *) pnd->peer;
    pmix_namespace_t *nptr = peer->nptr;
    if (nptr == NULL || prte_pmix422_list_holds(&pmix_globals.nspaces, &nptr->super)) return;
    PMIX_RETAIN(nptr); /* the list's reference */
    free(nptr->nspace);
    nptr->nspace = strdup(name->nspace);
    pmix_list_append(&pmix_globals.nspaces, &nptr->super);
    if (peer->info == NULL) {
        pmix_rank_info_t *info = PMIX_NEW(pmix_rank_info_t);
        info->pname.nspace = strdup(name->nspace);
        info->pname.rank = name->rank;
        info->uid = pnd->uid;
        info->gid = pnd->gid;
        pmix_list_append(&nptr->ranks, &info->super);
        PMIX_RETAIN(info); /* the connection record's reference */
        peer->info = info;
    }
    pnd->flag = PMIX_PROC_IS_LAUNCHER(&pnd->proc_type) ? PMIX_LAUNCHER_CLIENT : PMIX_TOOL_CLIENT;
}

/* The tool's end of the connection has closed (testing only). */
static int hung_up(int sd)
{
    struct pollfd p = {.fd = sd, .events = POLLIN | POLLRDHUP};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

static void answer(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct tool_answer *a = (struct tool_answer *) arg;
    pmix_pending_connection_t *pnd = (pmix_pending_connection_t *) a->cbdata;
    if (a->hung_up != NULL) {
        if (!hung_up(pnd->sd) && ++a->tries < PRTE_PMIX422_MAX_TRIES) {
            if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, answer, a, &prte_pmix422_a_moment) == 0) return;
        }
        a->hung_up(&a->name, a->tries < PRTE_PMIX422_MAX_TRIES);
    }
    if (self_started(pnd) && pnd->peer != NULL) complete_records(pnd, &a->name);
    a->cbfunc(a->status, &a->name, a->cbdata);
    free(a);
}

int prte_pmix422_answer_tool(pmix_status_t status, const pmix_proc_t *name, pmix_tool_connection_cbfunc_t cbfunc,
                             void *cbdata, prte_pmix422_tool_hung_up_fn hung_up_first)
{
    if (cbfunc == NULL || cbdata == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    struct tool_answer *a = (struct tool_answer *) calloc(1, sizeof(*a));
    if (a == NULL) return 0;
    a->status = status;
    /* A refused tool gets no name of its own, but its namespace record needs one to be released by. */
    if (name != NULL) {
        a->name = *name;
    } else {
        PMIX_LOAD_PROCID(&a->name, "refused-tool", 0);
    }
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    a->hung_up = hung_up_first;
    /* PMIx's records are its thread's alone; its event base takes events from any thread. */
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, answer, a, &prte_pmix422_now) != 0) {
        free(a);
        return 0;
    }
    return 1;
}

#else

int prte_pmix422_answer_tool(pmix_status_t status, const pmix_proc_t *name, pmix_tool_connection_cbfunc_t cbfunc,
                             void *cbdata, prte_pmix422_tool_hung_up_fn hung_up_first)
{
    (void) status;
    (void) name;
    (void) cbfunc;
    (void) cbdata;
    (void) hung_up_first;
    return 0;
}

#endif
