/* Repairs for OpenPMIx 4.2.2's server: records it keeps after every tool connection and group
 * operation. See pmix422/repairs.h. What was found, in PMIx 4.2.2's own source (apt-get source
 * pmix):
 *
 *  - A tool's connection record (pmix_peer_t, ~1.8 KB) stays in pmix_server_globals.clients for
 *    good: neither the end of its connection, nor its finalize, nor
 *    PMIx_server_deregister_client removes it. Each tool that PMIx names through the host also
 *    gets a namespace record of its own (~1.5 KB, even when names repeat) and a rank record.
 *  - _iofreg (after an IOF pull) and iofdereg (after a deregistration) never release the request
 *    (pmix_server_caddy_t) the switchyard made, which holds the connection record; iofdereg also
 *    leaks the request's directives.
 *  - Group operations: see pmix422/groups.c.
 *
 * Only this file, pmix422/groups.c, pmix422/group_timeouts.c and pmix422/tool_answers.c include PMIx's private headers
 * (through pmix422/private.h; configure adds them for these alone). The repairs depend on 4.2.2's exact layout and behaviour,
 * so they act only when the running libpmix says it is the version these headers describe: a
 * newer PMIx that releases these itself must not see them released twice. */
#include "pmix/pmix422/repairs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include "pmix/pmix422/private.h"

const struct timeval prte_pmix422_now = {0, 0};

static void release_request(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    pmix_server_caddy_t *request = (pmix_server_caddy_t *) arg;
    PMIX_RELEASE(request);
}

/* libevent runs active events in the order they were activated (a zero timeout given to
 * event_base_once is activated at once, "order-preserving"). This one was activated inside the
 * upcall, before PMIx queued its answer (_iofreg); activating the release from here puts it after
 * that answer. Releasing it from here instead crashed the DVM when a tool left at once. */
static void after_answer_queued(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, release_request, arg, &prte_pmix422_now) != 0) {
        /* Cannot schedule: keep the request (the leak, not a use after free). */
    }
}

void prte_pmix422_after_iof_request(void *cbdata, int stop)
{
    if (cbdata == NULL || prte_pmix422_repairs_state() != NULL) return;
    pmix_setup_caddy_t *cd = (pmix_setup_caddy_t *) cbdata;
    pmix_server_caddy_t *request = (pmix_server_caddy_t *) cd->cbdata;
    if (request == NULL) return;
    /* A deregistration's directives were created for this caddy alone; its destructor frees them
     * when it owns them. A pull's are freed by _iofreg itself. */
    if (stop) cd->copied = true;
    /* After this upcall returns PMIx answers through _iofreg (an event it activates then) or
     * iofdereg (at once), both of which still use the request: release it in two steps. */
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, after_answer_queued, request, &prte_pmix422_now) != 0) {
        /* Cannot schedule: keep the request (the leak, not a use after free). */
    }
}

int prte_pmix422_list_holds(pmix_list_t *list, pmix_list_item_t *wanted)
{
    pmix_list_item_t *item;
    PMIX_LIST_FOREACH (item, list, pmix_list_item_t) {
        if (item == wanted) return 1;
    }
    return 0;
}

/* A tool, not a process of a job that is also a tool. */
static int is_tool(const pmix_peer_t *peer) { return PMIX_PEER_IS_TOOL(peer) && !PMIX_PEER_IS_CLIENT(peer); }

/* Ended: PMIx's lost-connection handling has run (socket closed, its events stopped, and its
 * event and output registrations purged). */
static int tool_connection_ended(const pmix_peer_t *peer, const char *tools_nspace)
{
    return is_tool(peer) && peer->sd < 0 && !peer->recv_ev_active && !peer->send_ev_active && peer->nptr != NULL &&
           peer->nptr->nspace != NULL && strcmp(peer->nptr->nspace, tools_nspace) == 0;
}

static void release_tool(int index, pmix_peer_t *peer)
{
    pmix_namespace_t *nspace = peer->nptr;
    pmix_rank_info_t *rank = peer->info;
    /* The rank record is listed under the namespace record PMIx made for this connection; the
     * listing is one of its two references (the peer holds the other). */
    if (rank != NULL && prte_pmix422_list_holds(&nspace->ranks, &rank->super)) {
        pmix_list_remove_item(&nspace->ranks, &rank->super);
        PMIX_RELEASE(rank);
    }
    /* Likewise the namespace record, listed in pmix_globals.nspaces (lookups there are by name,
     * and every tool record carries the same name: take this one out by identity). */
    if (pmix_list_get_size(&nspace->ranks) == 0 && prte_pmix422_list_holds(&pmix_globals.nspaces, &nspace->super)) {
        pmix_list_remove_item(&pmix_globals.nspaces, &nspace->super);
        PMIX_RELEASE(nspace);
    }
    /* The clients array holds the reference PMIX_NEW gave the peer. A request still in flight
     * keeps its own, and the record goes when that is released. */
    pmix_pointer_array_set_item(&pmix_server_globals.clients, index, NULL);
    PMIX_RELEASE(peer);
}

size_t prte_pmix422_release_departed_tools(const char *tools_nspace, size_t *connected)
{
    size_t released = 0, live = 0;
    if (tools_nspace != NULL && prte_pmix422_repairs_state() == NULL) {
        for (int i = 0; i < pmix_server_globals.clients.size; i++) {
            pmix_peer_t *peer = (pmix_peer_t *) pmix_pointer_array_get_item(&pmix_server_globals.clients, i);
            if (peer == NULL || peer == pmix_globals.mypeer) continue;
            if (tool_connection_ended(peer, tools_nspace)) {
                release_tool(i, peer);
                ++released;
            } else if (is_tool(peer) && peer->sd >= 0) {
                ++live;
            }
        }
    }
    if (connected != NULL) *connected = live;
    return released;
}

int prte_pmix422_connected(const pmix_proc_t *proc)
{
    for (int i = 0; i < pmix_server_globals.clients.size; i++) {
        pmix_peer_t *peer = (pmix_peer_t *) pmix_pointer_array_get_item(&pmix_server_globals.clients, i);
        if (peer == NULL || peer->info == NULL) continue;
        if (PMIX_CHECK_PROCID(&peer->info->pname, proc) && peer->sd >= 0) return 1;
    }
    return 0;
}

const struct timeval prte_pmix422_a_moment = {0, 1000};

/* Collectives held for a job being killed (prte_pmix422_hold_collectives): PMIx's thread only. */
struct held {
    pmix_server_trkr_t *trk;
    pmix_nspace_t nspace;
};
static struct held *held;
static size_t nheld, held_cap;

/* Only among the job's own processes: a collective spanning another job must still end for that
 * job's processes when these go (pmix422/groups.c ends such group operations). */
static int only_job(const pmix_server_trkr_t *trk, const char *nspace)
{
    for (size_t n = 0; n < trk->npcs; n++) {
        if (!PMIX_CHECK_NSPACE(trk->pcs[n].nspace, nspace)) return 0;
    }
    return trk->npcs > 0;
}

struct hold_request {
    pmix_nspace_t nspace;
    void (*done)(void *);
    void *arg;
};

static void hold_now(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct hold_request *req = (struct hold_request *) arg;
    pmix_server_trkr_t *trk;
    PMIX_LIST_FOREACH (trk, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        /* lost_connection completes only a local collective itself (the others it hands to the
         * host once, marking them) */
        if (trk->host_called || !trk->local || !only_job(trk, req->nspace)) continue;
        if (nheld == held_cap) {
            size_t cap = held_cap ? 2 * held_cap : 8;
            struct held *grown = (struct held *) realloc(held, cap * sizeof(*held));
            if (grown == NULL) break;
            held = grown;
            held_cap = cap;
        }
        /* lost_connection leaves a tracker the host was called for to the host */
        trk->host_called = true;
        held[nheld].trk = trk;
        PMIX_LOAD_NSPACE(held[nheld].nspace, req->nspace);
        nheld++;
    }
    req->done(req->arg);
    free(req);
}

int prte_pmix422_hold_collectives(const char *nspace, void (*done)(void *), void *arg)
{
    if (nspace == NULL || done == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    struct hold_request *req = (struct hold_request *) calloc(1, sizeof(*req));
    if (req == NULL) return 0;
    PMIX_LOAD_NSPACE(req->nspace, nspace);
    req->done = done;
    req->arg = arg;
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, hold_now, req, &prte_pmix422_now) != 0) {
        free(req);
        return 0;
    }
    return 1;
}

/* PMIx's thread, once the job's clients are all gone: the held trackers PMIx still lists go. */
static void release_held(const char *nspace)
{
    size_t kept = 0;
    for (size_t i = 0; i < nheld; i++) {
        if (!PMIX_CHECK_NSPACE(held[i].nspace, nspace)) {
            held[kept++] = held[i];
            continue;
        }
        pmix_server_trkr_t *trk = held[i].trk;
        /* Compared by address only: PMIx may have released it meanwhile (its timer). */
        if (prte_pmix422_list_holds(&pmix_server_globals.collectives, &trk->super)) {
            pmix_list_remove_item(&pmix_server_globals.collectives, &trk->super);
            if (trk->event_active) pmix_event_del(&trk->ev);
            PMIX_RELEASE(trk);
        }
    }
    nheld = kept;
}

struct deregistration {
    pmix_proc_t job; /* rank PMIX_RANK_WILDCARD: every client of the namespace */
    int tries;
};

static void nothing_to_release(pmix_status_t status, void *cbdata)
{
    (void) status;
    (void) cbdata;
}

/* PMIx's thread: once no client of the namespace is connected any more (PMIx has handled every
 * connection's end), one more loop step, then the deregistration. */
static void deregister_when_disconnected(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct deregistration *d = (struct deregistration *) arg;
    if (d->tries >= 0 && prte_pmix422_connected(&d->job) && ++d->tries < PRTE_PMIX422_MAX_TRIES) {
        if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, deregister_when_disconnected, d,
                            &prte_pmix422_a_moment) == 0) {
            return;
        }
    } else if (d->tries >= 0) {
        d->tries = -1; /* the extra step */
        if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, deregister_when_disconnected, d,
                            &prte_pmix422_now) == 0) {
            return;
        }
    }
    release_held(d->job.nspace);
    prte_pmix422_forget_groups_of(d->job.nspace);
    if (!prte_pmix422_finalizing) PMIx_server_deregister_nspace(d->job.nspace, nothing_to_release, NULL);
    free(d);
}

int prte_pmix422_finalizing = 0;

/* The host's thread waits for the mark on PMIx's thread (prte_pmix422_before_server_finalize). */
struct finalize_mark {
    pthread_mutex_t lock;
    pthread_cond_t marked;
    int done;
};

static void mark_finalizing(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct finalize_mark *m = (struct finalize_mark *) arg;
    prte_pmix422_finalizing = 1;
    pthread_mutex_lock(&m->lock);
    m->done = 1;
    pthread_cond_signal(&m->marked);
    pthread_mutex_unlock(&m->lock);
}

void prte_pmix422_before_server_finalize(void)
{
    if (prte_pmix422_repairs_state() != NULL) return;
    /* On the heap, and left there if PMIx's thread does not run the step in time: it may still. */
    struct finalize_mark *m = (struct finalize_mark *) calloc(1, sizeof(*m));
    if (m == NULL) return;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->marked, NULL);
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, mark_finalizing, m, &prte_pmix422_now) != 0) {
        free(m);
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    pthread_mutex_lock(&m->lock);
    int rc = 0;
    while (!m->done && rc == 0) rc = pthread_cond_timedwait(&m->marked, &m->lock, &until);
    int done = m->done;
    pthread_mutex_unlock(&m->lock);
    if (done) {
        pthread_cond_destroy(&m->marked);
        pthread_mutex_destroy(&m->lock);
        free(m);
    }
}

void prte_pmix422_deregister_nspace(const char *nspace)
{
    struct deregistration *d = NULL;
    if (prte_pmix422_repairs_state() == NULL && (d = (struct deregistration *) calloc(1, sizeof(*d))) != NULL) {
        PMIX_LOAD_PROCID(&d->job, nspace, PMIX_RANK_WILDCARD);
        if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, deregister_when_disconnected, d,
                            &prte_pmix422_now) == 0) {
            return;
        }
        free(d);
    }
    PMIx_server_deregister_nspace(nspace, nothing_to_release, NULL);
}

#else /* built without PMIx's private headers */

int prte_pmix422_hold_collectives(const char *nspace, void (*done)(void *), void *arg)
{
    (void) nspace;
    (void) done;
    (void) arg;
    return 0;
}

static void nothing_to_release(pmix_status_t status, void *cbdata)
{
    (void) status;
    (void) cbdata;
}

void prte_pmix422_deregister_nspace(const char *nspace)
{
    PMIx_server_deregister_nspace(nspace, nothing_to_release, NULL);
}

void prte_pmix422_before_server_finalize(void) {}

void prte_pmix422_after_iof_request(void *cbdata, int stop)
{
    (void) cbdata;
    (void) stop;
}

size_t prte_pmix422_release_departed_tools(const char *tools_nspace, size_t *connected)
{
    (void) tools_nspace;
    if (connected != NULL) *connected = 0;
    return 0;
}

#endif
