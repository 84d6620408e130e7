/* Repairs for OpenPMIx 4.2.2's group constructs and destructs (see pmix422/repairs.h). What was
 * found in 4.2.2's source (src/server/pmix_server_ops.c, src/mca/ptl/base/ptl_base_sendrecv.c):
 *
 *  - _grpcbfunc, the end of every group operation the host completes, takes the operation's
 *    tracker off pmix_server_globals.collectives and never releases it (its
 *    "//  PMIX_RELEASE(trk);"). That is about 9 KB per construct on every node hosting members.
 *  - A construct that completes with an error leaves its group record in
 *    pmix_server_globals.groups. Only a destruct removes it, so a later construct of the same id
 *    on that node is never handed to the host and waits for ever. The same holds for the record
 *    every PMIX_GROUP_CONSTRUCT_COMPLETE notified through a server leaves, on nodes without
 *    members too: records are forgotten when the last of their members' jobs is deregistered.
 *  - When a member's connection is lost, lost_connection counts it out of each tracker naming it.
 *    If that makes the tracker locally complete, it hands fences, connects and disconnects to the
 *    host, but not group operations. So the members that did call wait for ever. It also never
 *    marks a group tracker as handed to the host, so it cannot tell one that is waiting for the
 *    host from one that is stuck. Such a tracker is answered here with an error, or, when it goes
 *    on without the member (PMIX_GROUP_OPTIONAL, or the destruct of a group that asked for
 *    PMIX_GROUP_NOTIFY_TERMINATION), handed to the host as PMIx would have handed it.
 *  - A client stays registered after its end, and new_tracker counts every registered client a
 *    group operation names by rank as one of the node's participants: an operation started after
 *    a member ended waited for it for ever. The ended client is deregistered once PMIx has
 *    handled the end of its connection, when the host asks (an abnormal end; a member of a group
 *    whose destruct goes on without ended members) or such an operation named it.
 *
 * This file, pmix422/repairs.c and pmix422/group_timeouts.c are the only ones built against PMIx's
 * private headers, and like them these repairs act only on the libpmix whose build id configure
 * recorded (switch.c). */
#include "pmix/pmix422/repairs.h"

#include <stdlib.h>
#include <string.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include "pmix/pmix422/private.h"

static int is_group_tracker(const pmix_server_trkr_t *trk)
{
    return trk->type == PMIX_GROUP_CONSTRUCT_CMD || trk->type == PMIX_GROUP_DESTRUCT_CMD;
}

static int has_timeout(const pmix_info_t *info, size_t ninfo)
{
    for (size_t n = 0; info != NULL && n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_TIMEOUT)) return 1;
    }
    return 0;
}

/* A construct's or destruct's tracker carries its group record (trk->cbdata). A destruct's
 * _grpcbfunc removes that record whatever the outcome; a failed construct's must go as well, so
 * that its id can be used again. */
void prte_pmix422_drop_group_record(pmix_server_trkr_t *trk)
{
    pmix_group_t *grp = (pmix_group_t *) trk->cbdata;
    if (grp == NULL || !prte_pmix422_list_holds(&pmix_server_globals.groups, &grp->super)) return;
    pmix_list_remove_item(&pmix_server_globals.groups, &grp->super);
    PMIX_RELEASE(grp);
}

void prte_pmix422_group_handed_to_host(void *cbdata)
{
    if (cbdata == NULL || prte_pmix422_repairs_state() != NULL) return;
    pmix_server_trkr_t *trk = (pmix_server_trkr_t *) cbdata;
    if (is_group_tracker(trk)) trk->host_called = true;
}

int prte_pmix422_release_group_tracker(void *cbdata, int failed)
{
    if (cbdata == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    pmix_server_trkr_t *trk = (pmix_server_trkr_t *) cbdata;
    if (!is_group_tracker(trk)) return 0;
    /* Still listed: _grpcbfunc has not finished with it (not called as its release function). */
    if (prte_pmix422_list_holds(&pmix_server_globals.collectives, &trk->super)) return 0;
    if (failed && trk->type == PMIX_GROUP_CONSTRUCT_CMD) prte_pmix422_drop_group_record(trk);
    /* PMIX_TIMEOUT that reached PMIx (prte_pmix422_time_group_operations could not take it) with
     * several members on this node: PMIx armed the tracker's timer once per member, and libevent
     * may still hold the event after _grpcbfunc deleted it once (pmix422/group_timeouts.c).
     * Freeing it would turn that known wedge into a use after free: keep the tracker. */
    if (trk->nlocal > 1 && has_timeout(trk->info, trk->ninfo)) return 0;
    PMIX_RELEASE(trk);
    return 1;
}

static int declares_leader(const pmix_info_t *info, size_t ninfo)
{
    for (size_t n = 0; info != NULL && n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_GROUP_LEADER)) return PMIX_INFO_TRUE(&info[n]);
    }
    return 0;
}

/* PMIx 4.2.2 keeps the directives of the caller that created the tracker only (trk->info; the
 * other callers' are dropped), and that caller's request is the first on local_cbs. */
static int leader_of(const pmix_server_trkr_t *trk, pmix_proc_t *leader)
{
    if (!declares_leader(trk->info, trk->ninfo)) return 0;
    pmix_server_caddy_t *first = (pmix_server_caddy_t *) pmix_list_get_first((pmix_list_t *) &trk->local_cbs);
    if (first == (pmix_server_caddy_t *) pmix_list_get_end((pmix_list_t *) &trk->local_cbs) || first->peer == NULL ||
        first->peer->info == NULL) {
        return 0;
    }
    PMIX_LOAD_PROCID(leader, first->peer->info->pname.nspace, first->peer->info->pname.rank);
    return 1;
}

int prte_pmix422_group_leader(void *cbdata, pmix_proc_t *leader)
{
    if (cbdata == NULL || leader == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    pmix_server_trkr_t *trk = (pmix_server_trkr_t *) cbdata;
    return is_group_tracker(trk) && trk->type == PMIX_GROUP_CONSTRUCT_CMD && leader_of(trk, leader);
}

static int is_optional(const pmix_info_t *info, size_t ninfo)
{
    for (size_t n = 0; info != NULL && n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_GROUP_OPTIONAL)) return PMIX_INFO_TRUE(&info[n]);
    }
    return 0;
}

/* What _grpcbfunc sends each caller: the status and, for a construct, a context id (SIZE_MAX for
 * none). */
static void answer_callers(pmix_server_trkr_t *trk, pmix_status_t status, size_t context_id)
{
    pmix_server_caddy_t *cd;
    PMIX_LIST_FOREACH (cd, &trk->local_cbs, pmix_server_caddy_t) {
        pmix_status_t rc;
        pmix_buffer_t *reply = PMIX_NEW(pmix_buffer_t);
        if (reply == NULL) break;
        PMIX_BFROPS_PACK(rc, cd->peer, reply, &status, 1, PMIX_STATUS);
        if (rc == PMIX_SUCCESS && trk->type == PMIX_GROUP_CONSTRUCT_CMD) {
            PMIX_BFROPS_PACK(rc, cd->peer, reply, &context_id, 1, PMIX_SIZE);
        }
        if (rc == PMIX_SUCCESS) PMIX_SERVER_QUEUE_REPLY(rc, cd->peer, cd->hdr.tag, reply);
        if (rc != PMIX_SUCCESS) PMIX_RELEASE(reply);
    }
}

/* Locally complete (every local member still connected has called) yet never handed to the host:
 * only lost_connection leaves a group tracker so. One PMIx completes itself (a local-only group)
 * is off the list by the time this runs (see await_lost_connection). */
static int stuck(const pmix_server_trkr_t *trk)
{
    return is_group_tracker(trk) && !trk->host_called && trk->def_complete &&
           pmix_list_get_size((pmix_list_t *) &trk->local_cbs) == trk->nlocal;
}

struct loss {
    pmix_proc_t proc;
    pmix_status_t status;
    int forget; /* deregister the client once done with it (see end_groups_waiting_for) */
    int tries;
    prte_pmix422_group_ended_fn report;
    prte_pmix422_connection_closed_fn then;
};

static void client_forgotten(pmix_status_t status, void *cbdata)
{
    (void) status;
    (void) cbdata;
}

/* Every path that ends a loss ends here: `then` is called once, whatever happened before. The
 * client is deregistered last, on a later loop turn (PMIx threadshifts it): the operations handed
 * over meanwhile hold their own copies of its name. */
static void finish(struct loss *loss)
{
    if (loss->then != NULL) loss->then(&loss->proc);
    if (loss->forget && !prte_pmix422_finalizing) PMIx_server_deregister_client(&loss->proc, client_forgotten, NULL);
    free(loss);
}

/* A stuck tracker, taken off PMIx's list, and what to answer its callers. */
struct ending {
    pmix_server_trkr_t *trk;
    pmix_status_t status;
};

static void answer_and_release(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct ending *ending = (struct ending *) arg;
    answer_callers(ending->trk, ending->status, SIZE_MAX);
    PMIX_RELEASE(ending->trk);
    free(ending);
}

/* A tracker PMIx will never complete, taken off its list (with its timer) for this file to answer
 * or hand to the host. Its group record stays until that answer says whether the group exists. */
void prte_pmix422_take_over_group(pmix_server_trkr_t *trk)
{
    pmix_list_remove_item(&pmix_server_globals.collectives, &trk->super);
    if (trk->event_active) pmix_event_del(&trk->ev);
    prte_pmix422_forget_group_timer(trk);
}

/* Answers a taken-over tracker's callers with `status` and releases it, one loop step from now:
 * an event raised meanwhile (a report's) is queued first, and so reaches them before the answer. */
void prte_pmix422_answer_group_soon(pmix_server_trkr_t *trk, pmix_status_t status)
{
    struct ending *ending = (struct ending *) calloc(1, sizeof(*ending));
    if (ending != NULL) {
        ending->trk = trk;
        ending->status = status;
        if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, answer_and_release, ending, &prte_pmix422_now) == 0) {
            return;
        }
        free(ending);
    }
    answer_callers(trk, status, SIZE_MAX);
    PMIX_RELEASE(trk);
}

/* The host's answer to an operation handed over (hand_over), carried to PMIx's thread. */
struct handed_answer {
    pmix_server_trkr_t *trk;
    pmix_status_t status;
    size_t context_id;
    pmix_release_cbfunc_t relfn;
    void *relcbd;
};

/* What _grpcbfunc does, but for storing the members' data (these callers get the others' data by
 * the direct modex instead): answers the callers, keeps the group record of a construct that
 * succeeded and drops any other, and hands the tracker to the host's release function, which
 * releases it (prte_pmix422_release_group_tracker: it is on no list). */
static void answer_handed(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct handed_answer *a = (struct handed_answer *) arg;
    answer_callers(a->trk, a->status, a->context_id);
    if (a->status != PMIX_SUCCESS || a->trk->type == PMIX_GROUP_DESTRUCT_CMD) prte_pmix422_drop_group_record(a->trk);
    if (a->relfn != NULL) {
        a->relfn(a->relcbd);
    } else {
        PMIX_RELEASE(a->trk);
    }
    free(a);
}

/* The host's callback (its progress thread; PMIx's own threadshifts too). */
static void handed_answered(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                            pmix_release_cbfunc_t relfn, void *relcbd)
{
    struct handed_answer *a = (struct handed_answer *) calloc(1, sizeof(*a));
    if (a == NULL) return; /* the callers wait: nothing better can be done without memory */
    a->trk = (pmix_server_trkr_t *) cbdata;
    a->status = status;
    a->context_id = SIZE_MAX;
    a->relfn = relfn;
    a->relcbd = relcbd;
    for (size_t n = 0; info != NULL && n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_GROUP_CONTEXT_ID)) {
            pmix_status_t rc;
            size_t id = SIZE_MAX;
            PMIX_VALUE_GET_NUMBER(rc, &info[n].value, id, size_t);
            if (rc == PMIX_SUCCESS) a->context_id = id;
        }
    }
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, answer_handed, a, &prte_pmix422_now) != 0) free(a);
}

/* An operation the loss of a member left complete here that goes on without it (a construct with
 * PMIX_GROUP_OPTIONAL, a destruct of a group that asked for PMIX_GROUP_NOTIFY_TERMINATION) goes to
 * the host as PMIx would have handed it over (its group upcall). Its callers' data was never
 * collected: the host gets none from this node. */
static int hand_over(pmix_server_trkr_t *trk)
{
    if (pmix_host_server.group == NULL) return 0;
    pmix_group_operation_t op = trk->type == PMIX_GROUP_CONSTRUCT_CMD ? PMIX_GROUP_CONSTRUCT : PMIX_GROUP_DESTRUCT;
    trk->host_called = true;
    return pmix_host_server.group(op, trk->id, trk->pcs, trk->npcs, trk->info, trk->ninfo, handed_answered, trk) ==
           PMIX_SUCCESS;
}

/* The report comes first, and the answer one loop step later: an event the report raises
 * (PMIX_GROUP_INVITE_FAILED) is queued on PMIx's thread, and so reaches the members before the
 * answer that ends their construct. */
static void end_stuck_groups(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct loss *loss = (struct loss *) arg;
    pmix_server_trkr_t *trk, *next;
    PMIX_LIST_FOREACH_SAFE (trk, next, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        if (!stuck(trk)) continue;
        int construct = trk->type == PMIX_GROUP_CONSTRUCT_CMD;
        int optional = construct && is_optional(trk->info, trk->ninfo);
        prte_pmix422_take_over_group(trk);
        if (loss->report != NULL) {
            pmix_proc_t leader;
            int has_leader = construct && leader_of(trk, &leader);
            optional = loss->report(trk->id, construct, optional, &loss->proc, has_leader ? &leader : NULL, trk->pcs,
                                    trk->npcs, pmix_list_get_size(&trk->local_cbs));
        }
        if (optional) {
            /* Later operations naming the member must not count it as one of this node's either. */
            loss->forget = 1;
            if (hand_over(trk)) continue; /* answer_handed drops the record unless a construct succeeded */
        }
        prte_pmix422_drop_group_record(trk);
        prte_pmix422_answer_group_soon(trk, loss->status);
    }
    finish(loss);
}

struct abort_request {
    char *id;
    pmix_status_t status;
    prte_pmix422_construct_aborted_fn report;
    void *arg;
};

/* PMIx's thread, as job `nspace` is deregistered. PMIx 4.2.2 records a group in
 * pmix_server_globals.groups at its construct, and also for every PMIX_GROUP_CONSTRUCT_COMPLETE
 * notified through the server (pmix_event_notification.c) - on nodes that host none of its members
 * too, since the DVM relays that event to every daemon - and only a destruct on that node removes
 * the record. A later construct of the same id there took the old record's members, counted the
 * wrong participants and was never handed to the host: OpenPMIx's own asyncgroup example followed by
 * its group_dmodex waited for ever on the node of the rank asyncgroup left out. A record is
 * forgotten once none of its members' namespaces is registered any more, unless a tracker still
 * carries it. */
static int still_registered(const char *nspace, const char *leaving)
{
    if (PMIX_CHECK_NSPACE(nspace, leaving)) return 0;
    pmix_namespace_t *ns;
    PMIX_LIST_FOREACH (ns, &pmix_globals.nspaces, pmix_namespace_t) {
        if (ns->nspace != NULL && PMIX_CHECK_NSPACE(ns->nspace, nspace)) return 1;
    }
    return 0;
}

static int carried_by_a_tracker(const pmix_group_t *grp)
{
    pmix_server_trkr_t *trk;
    PMIX_LIST_FOREACH (trk, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        if (is_group_tracker(trk) && trk->cbdata == grp) return 1;
    }
    return 0;
}

size_t prte_pmix422_forget_groups_of(const char *nspace)
{
    size_t forgotten = 0;
    pmix_group_t *grp, *next;
    PMIX_LIST_FOREACH_SAFE (grp, next, &pmix_server_globals.groups, pmix_group_t) {
        int live = 0;
        for (size_t m = 0; m < grp->nmbrs && !live; m++) live = still_registered(grp->members[m].nspace, nspace);
        if (live || carried_by_a_tracker(grp)) continue;
        pmix_list_remove_item(&pmix_server_globals.groups, &grp->super);
        PMIX_RELEASE(grp);
        forgotten++;
    }
    return forgotten;
}

/* PMIx's thread. Each construct of the group on this node is either with the host (reported, for
 * the host to end) or still gathering this node's callers (answered here, one loop step after the
 * report, as end_stuck_groups does). */
static int is_construct_of(const pmix_server_trkr_t *trk, const char *id)
{
    return trk->type == PMIX_GROUP_CONSTRUCT_CMD && trk->id != NULL && strcmp(trk->id, id) == 0;
}

static void abort_constructs(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct abort_request *req = (struct abort_request *) arg;
    size_t left = 0;
    pmix_server_trkr_t *trk, *next;
    PMIX_LIST_FOREACH (trk, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        if (is_construct_of(trk, req->id)) left++;
    }
    if (left == 0) req->report(req->id, NULL, 0, -1, 0, req->arg, 1);
    PMIX_LIST_FOREACH_SAFE (trk, next, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        if (!is_construct_of(trk, req->id)) continue;
        size_t callers = pmix_list_get_size(&trk->local_cbs);
        int last = --left == 0;
        if (trk->host_called) {
            req->report(req->id, trk->pcs, trk->npcs, 1, callers, req->arg, last);
            continue;
        }
        prte_pmix422_take_over_group(trk);
        prte_pmix422_drop_group_record(trk);
        req->report(req->id, trk->pcs, trk->npcs, 0, callers, req->arg, last);
        prte_pmix422_answer_group_soon(trk, req->status);
    }
    free(req->id);
    free(req);
}

int prte_pmix422_abort_construct(const char *id, int status, prte_pmix422_construct_aborted_fn report, void *arg)
{
    if (id == NULL || report == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    struct abort_request *req = (struct abort_request *) calloc(1, sizeof(*req));
    if (req == NULL) return 0;
    req->id = strdup(id);
    if (req->id == NULL) {
        free(req);
        return 0;
    }
    req->status = status;
    req->report = report;
    req->arg = arg;
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, abort_constructs, req, &prte_pmix422_now) != 0) {
        free(req->id);
        free(req);
        return 0;
    }
    return 1;
}

/* The process was reaped, so its socket is closed, but PMIx may not have read the end of it yet
 * (messages it sent before dying come first). Once PMIx has (lost_connection ran), one more step:
 * a group PMIx completed meanwhile by itself was queued (its _grpcbfunc activated) before that
 * step is, and is off the list when it runs. */
static void await_lost_connection(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct loss *loss = (struct loss *) arg;
    const struct timeval *when = &prte_pmix422_now;
    event_callback_fn next = end_stuck_groups;
    if (prte_pmix422_connected(&loss->proc) && ++loss->tries < PRTE_PMIX422_MAX_TRIES) {
        when = &prte_pmix422_a_moment;
        next = await_lost_connection;
    }
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, next, loss, when) != 0) finish(loss);
}

int prte_pmix422_end_groups_waiting_for(const pmix_proc_t *proc, int status, int forget,
                                        prte_pmix422_group_ended_fn report, prte_pmix422_connection_closed_fn then)
{
    if (proc == NULL || prte_pmix422_repairs_state() != NULL) return 0;
    struct loss *loss = (struct loss *) calloc(1, sizeof(*loss));
    if (loss == NULL) return 0;
    loss->proc = *proc;
    loss->status = status;
    loss->forget = forget;
    loss->report = report;
    loss->then = then;
    /* PMIx's event base takes events from any thread (PMIx enables libevent's pthreads support). */
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, await_lost_connection, loss, &prte_pmix422_now) != 0) {
        free(loss);
        return 0;
    }
    return 1;
}

#else /* built without PMIx's private headers */

int prte_pmix422_group_leader(void *cbdata, pmix_proc_t *leader)
{
    (void) cbdata;
    (void) leader;
    return 0;
}

void prte_pmix422_group_handed_to_host(void *cbdata)
{
    (void) cbdata;
}

int prte_pmix422_release_group_tracker(void *cbdata, int failed)
{
    (void) cbdata;
    (void) failed;
    return 0;
}

int prte_pmix422_end_groups_waiting_for(const pmix_proc_t *proc, int status, int forget,
                                        prte_pmix422_group_ended_fn report, prte_pmix422_connection_closed_fn then)
{
    (void) proc;
    (void) status;
    (void) forget;
    (void) report;
    (void) then;
    return 0;
}

#endif
