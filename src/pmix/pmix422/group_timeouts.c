/* PMIX_TIMEOUT of group constructs and destructs, timed by the host: OpenPMIx 4.2.2 never sees it
 * (see pmix422/repairs.h, prte_pmix422_time_group_operations). What 4.2.2 does with it
 * (src/server/pmix_server_ops.c, pmix_server_grpconstruct and pmix_server_grpdestruct):
 *
 *  - For every member that calls, PMIX_THREADSHIFT_DELAY(trk, grp_timeout) assigns the tracker's
 *    timer afresh (event_assign) and adds it, pending or not. Assigning a pending libevent timer
 *    leaves a second entry for it in the base's timer heap; _grpcbfunc deletes one, and when the
 *    other comes due libevent cannot take it out (the event no longer says it is in the heap):
 *    timeout_process finds the same entry at the top for ever and PMIx's thread spins, answering
 *    nobody. Two members on one node were enough: pterm then waited 7 s for the daemons.
 *  - grp_timeout takes the tracker it is handed for a member's request: on a node where some
 *    members called and one never does, the daemon crashed when the time came.
 *
 * So every group construct or destruct a client sends passes through here before PMIx reads it
 * (PMIx's wildcard receive, pmix_server_message_handler, is wrapped), and a PMIX_TIMEOUT among its
 * directives is renamed PRTE_PMIX422_GROUP_TIMEOUT. Once the operation is handed to the host (all of
 * this node's members called), the host's collective keeps the time. Until then this file does: the
 * time runs from the first of this node's members to call, and when it is up those that called are
 * answered PMIX_ERR_TIMEOUT, as the standard says PMIx would.
 *
 * Everything here runs on PMIx's progress thread, but for the installation's search. */
#include "pmix/pmix422/repairs.h"

#include <stdlib.h>
#include <string.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS

#include "pmix/pmix422/private.h"

/* PMIx's own handler of every message a client sends, and the host's report of a local timeout. */
static pmix_ptl_cbfunc_t pmix_handler;
static prte_pmix422_group_timed_out_fn timed_out_report;

/* One operation still gathering this node's members, and when its time is up. */
struct local_timer {
    struct local_timer *next;
    pmix_cmd_t type;
    char *id;
    unsigned seconds;
    struct event *ev;
};
static struct local_timer *timers;

/* What a client's group construct or destruct message holds (pmix_client_group.c packs it so). */
struct group_message {
    pmix_cmd_t cmd;
    char *id;
    pmix_proc_t *procs; /* construct only */
    size_t nprocs;
    pmix_info_t *info;
    size_t ninfo;
};

static void clear_message(struct group_message *m)
{
    free(m->id);
    if (m->procs != NULL) PMIX_PROC_FREE(m->procs, m->nprocs);
    if (m->info != NULL) PMIX_INFO_FREE(m->info, m->ninfo);
    memset(m, 0, sizeof(*m));
}

/* 1 when `buf` is a whole group construct or destruct, read into `m`; `buf` is left unread either way. */
static int read_group_message(pmix_peer_t *peer, pmix_buffer_t *buf, struct group_message *m)
{
    char *start = buf->unpack_ptr;
    pmix_status_t rc;
    int32_t cnt = 1;
    int whole = 0;
    memset(m, 0, sizeof(*m));
    PMIX_BFROPS_UNPACK(rc, peer, buf, &m->cmd, &cnt, PMIX_COMMAND);
    if (rc != PMIX_SUCCESS || (m->cmd != PMIX_GROUP_CONSTRUCT_CMD && m->cmd != PMIX_GROUP_DESTRUCT_CMD)) goto done;
    cnt = 1;
    PMIX_BFROPS_UNPACK(rc, peer, buf, &m->id, &cnt, PMIX_STRING);
    if (rc != PMIX_SUCCESS || m->id == NULL) goto done;
    if (m->cmd == PMIX_GROUP_CONSTRUCT_CMD) {
        cnt = 1;
        PMIX_BFROPS_UNPACK(rc, peer, buf, &m->nprocs, &cnt, PMIX_SIZE);
        if (rc != PMIX_SUCCESS || m->nprocs == 0) goto done;
        PMIX_PROC_CREATE(m->procs, m->nprocs);
        if (m->procs == NULL) goto done;
        cnt = (int32_t) m->nprocs;
        PMIX_BFROPS_UNPACK(rc, peer, buf, m->procs, &cnt, PMIX_PROC);
        if (rc != PMIX_SUCCESS) goto done;
    }
    cnt = 1;
    PMIX_BFROPS_UNPACK(rc, peer, buf, &m->ninfo, &cnt, PMIX_SIZE);
    if (rc != PMIX_SUCCESS) goto done;
    if (m->ninfo > 0) {
        PMIX_INFO_CREATE(m->info, m->ninfo);
        if (m->info == NULL) goto done;
        cnt = (int32_t) m->ninfo;
        PMIX_BFROPS_UNPACK(rc, peer, buf, m->info, &cnt, PMIX_INFO);
        if (rc != PMIX_SUCCESS) goto done;
    }
    /* Nothing may follow: a message of another form is left as it came. */
    whole = buf->unpack_ptr == buf->base_ptr + buf->bytes_used;
done:
    buf->unpack_ptr = start;
    return whole;
}

/* The message again, packed for `peer` as its client packed it. */
static int write_group_message(pmix_peer_t *peer, const struct group_message *m, pmix_buffer_t *out)
{
    pmix_status_t rc;
    PMIX_BFROPS_PACK(rc, peer, out, &m->cmd, 1, PMIX_COMMAND);
    if (rc == PMIX_SUCCESS) PMIX_BFROPS_PACK(rc, peer, out, &m->id, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS && m->cmd == PMIX_GROUP_CONSTRUCT_CMD) {
        PMIX_BFROPS_PACK(rc, peer, out, &m->nprocs, 1, PMIX_SIZE);
        if (rc == PMIX_SUCCESS) PMIX_BFROPS_PACK(rc, peer, out, m->procs, (int32_t) m->nprocs, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) PMIX_BFROPS_PACK(rc, peer, out, &m->ninfo, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && m->ninfo > 0) PMIX_BFROPS_PACK(rc, peer, out, m->info, (int32_t) m->ninfo, PMIX_INFO);
    return rc == PMIX_SUCCESS;
}

/* Renames PMIX_TIMEOUT; its seconds (0: none, or not a positive number). 4.2.2 reads the value as
 * a uint32 whatever its type; the host reads any integer. */
static unsigned rename_timeout(struct group_message *m)
{
    unsigned seconds = 0;
    for (size_t n = 0; n < m->ninfo; n++) {
        if (!PMIX_CHECK_KEY(&m->info[n], PMIX_TIMEOUT)) continue;
        PMIX_LOAD_KEY(m->info[n].key, PRTE_PMIX422_GROUP_TIMEOUT);
        pmix_status_t rc;
        long value = 0;
        PMIX_VALUE_GET_NUMBER(rc, &m->info[n].value, value, long);
        if (rc == PMIX_SUCCESS && value > 0 && seconds == 0) seconds = (unsigned) value;
    }
    return seconds;
}

static pmix_server_trkr_t *find_tracker(pmix_cmd_t type, const char *id)
{
    pmix_server_trkr_t *trk;
    PMIX_LIST_FOREACH (trk, &pmix_server_globals.collectives, pmix_server_trkr_t) {
        if (trk->type == type && trk->id != NULL && strcmp(trk->id, id) == 0) return trk;
    }
    return NULL;
}

/* Still waiting for some of this node's members: neither handed to the host nor complete here. */
static int gathering(pmix_server_trkr_t *trk)
{
    return !trk->host_called && !(trk->def_complete && pmix_list_get_size(&trk->local_cbs) == trk->nlocal);
}

static struct local_timer **find_timer(pmix_cmd_t type, const char *id)
{
    struct local_timer **at = &timers;
    while (*at != NULL && ((*at)->type != type || strcmp((*at)->id, id) != 0)) at = &(*at)->next;
    return at;
}

static void drop_timer(struct local_timer **at)
{
    struct local_timer *t = *at;
    if (t == NULL) return;
    *at = t->next;
    event_free(t->ev); /* deletes it if pending */
    free(t->id);
    free(t);
}

void prte_pmix422_forget_group_timer(const pmix_server_trkr_t *trk)
{
    if (trk->id != NULL) drop_timer(find_timer(trk->type, trk->id));
}

static void time_is_up(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    struct local_timer *t = (struct local_timer *) arg;
    pmix_server_trkr_t *trk = find_tracker(t->type, t->id);
    if (trk != NULL && gathering(trk)) {
        int construct = trk->type == PMIX_GROUP_CONSTRUCT_CMD;
        size_t callers = pmix_list_get_size(&trk->local_cbs);
        if (timed_out_report != NULL) timed_out_report(t->id, construct, trk->pcs, trk->npcs, callers, t->seconds);
        prte_pmix422_take_over_group(trk); /* drops this timer */
        /* PMIx forgets a group whose construct failed (the repairs do, pmix422/groups.c) or that
         * was destructed, whatever the outcome. */
        prte_pmix422_drop_group_record(trk);
        prte_pmix422_answer_group_soon(trk, PMIX_ERR_TIMEOUT);
        return;
    }
    drop_timer(find_timer(t->type, t->id));
}

/* After PMIx has read a member's call: the operation's time runs from the first of this node's
 * members to call until PMIx hands it to the host or completes it here. */
static void time_locally(pmix_cmd_t type, const char *id, unsigned seconds, int existed)
{
    pmix_server_trkr_t *trk = find_tracker(type, id);
    struct local_timer **at = find_timer(type, id);
    if (trk == NULL || !gathering(trk)) {
        drop_timer(at);
        return;
    }
    if (existed && *at != NULL) return;
    drop_timer(at); /* a timer of an earlier operation of the same id */
    if (seconds == 0) return;
    struct local_timer *t = (struct local_timer *) calloc(1, sizeof(*t));
    if (t == NULL) return;
    t->type = type;
    t->id = strdup(id);
    t->seconds = seconds;
    t->ev = event_new(pmix_globals.evbase, -1, 0, time_is_up, t);
    struct timeval tv = {(time_t) seconds, 0};
    if (t->id == NULL || t->ev == NULL || event_add(t->ev, &tv) != 0) {
        if (t->ev != NULL) event_free(t->ev);
        free(t->id);
        free(t);
        return;
    }
    t->next = timers;
    timers = t;
}

/* PMIx's thread: every message a client sends. */
static void handle_message(struct pmix_peer_t *pr, pmix_ptl_hdr_t *hdr, pmix_buffer_t *buf, void *cbdata)
{
    pmix_peer_t *peer = (pmix_peer_t *) pr;
    struct group_message m;
    if (prte_pmix422_repairs_state() != NULL || !read_group_message(peer, buf, &m)) {
        clear_message(&m);
        pmix_handler(pr, hdr, buf, cbdata);
        return;
    }
    int existed = find_tracker(m.cmd, m.id) != NULL;
    unsigned seconds = rename_timeout(&m);
    pmix_buffer_t renamed;
    PMIX_CONSTRUCT(&renamed, pmix_buffer_t);
    renamed.type = buf->type;
    if (seconds > 0 && write_group_message(peer, &m, &renamed)) {
        pmix_handler(pr, hdr, &renamed, cbdata);
    } else {
        pmix_handler(pr, hdr, buf, cbdata);
    }
    PMIX_DESTRUCT(&renamed);
    time_locally(m.cmd, m.id, seconds, existed);
    clear_message(&m);
}

static void install(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    ((pmix_ptl_posted_recv_t *) arg)->cbfunc = handle_message;
}

int prte_pmix422_time_group_operations(prte_pmix422_group_timed_out_fn report)
{
    if (prte_pmix422_repairs_state() != NULL || pmix_handler != NULL) return 0;
    /* Read here, on the host's thread: PMIx_server_init (returned) wrote the list, and only a
     * client's send-receive writes it again, which a server never does. */
    pmix_ptl_posted_recv_t *rcv, *wildcard = NULL;
    PMIX_LIST_FOREACH (rcv, &pmix_ptl_base.posted_recvs, pmix_ptl_posted_recv_t) {
        if (rcv->tag == UINT32_MAX && rcv->cbfunc != NULL) wildcard = rcv;
    }
    if (wildcard == NULL) return 0;
    pmix_handler = wildcard->cbfunc;
    timed_out_report = report;
    /* The switch itself on PMIx's thread, which calls the handler; no client is connected yet. */
    if (event_base_once(pmix_globals.evbase, -1, EV_TIMEOUT, install, wildcard, &prte_pmix422_now) != 0) {
        pmix_handler = NULL;
        return 0;
    }
    return 1;
}

#else /* built without PMIx's private headers */

int prte_pmix422_time_group_operations(prte_pmix422_group_timed_out_fn report)
{
    (void) report;
    return 0;
}

#endif
