/* What the C files of this directory share, and nothing else includes: OpenPMIx 4.2.2's private
 * headers, the check that they describe 4.2.2, and the helpers each defines for the others.
 * Include only under PRTE_PMIX422_PRIVATE_HEADERS. */
#ifndef PRTE_PMIX_PMIX422_PRIVATE_H
#define PRTE_PMIX_PMIX422_PRIVATE_H

#include <event2/event.h>
#include <pmix.h>

#include "src/include/pmix_config.h"
#include "src/include/pmix_globals.h"
#include "src/mca/bfrops/bfrops.h"
#include "src/mca/ptl/base/base.h"
#include "src/mca/ptl/ptl_types.h"
#include "src/server/pmix_server_ops.h"

#if PMIX_MAJOR_VERSION != 4 || PMIX_MINOR_VERSION != 2 || PMIX_RELEASE_VERSION != 2
#error "the pmix422 repairs describe OpenPMIx 4.2.2 only; configure should not have enabled them"
#endif

/* Whether `wanted` is on `list`. PMIx's records are taken out by identity: several may carry one
 * name (every tool's namespace record does). */
int prte_pmix422_list_holds(pmix_list_t *list, pmix_list_item_t *wanted);

/* A zero timeout for event_base_once: the event runs on PMIx's next loop turn, after those
 * activated before it. */
extern const struct timeval prte_pmix422_now;

/* PMIx's thread only: set once prte_pmix422_before_server_finalize's step has run there; from
 * then on, no PMIx server function may be called from PMIx's thread (repairs.h says why). */
extern int prte_pmix422_finalizing;

/* Polling for PMIx to notice a connection's end: every moment (1 ms), this many times at most. */
extern const struct timeval prte_pmix422_a_moment;
#define PRTE_PMIX422_MAX_TRIES 5000

/* Whether a client `proc` names (a rank, or PMIX_RANK_WILDCARD for any of its namespace) is still
 * connected as far as PMIx's server knows: it has not handled the connection's end yet. */
int prte_pmix422_connected(const pmix_proc_t *proc);
/* PMIx's thread (pmix422/groups.c): forgets the group records of namespaces no longer registered,
 * `nspace` (being deregistered) included; returns how many. */
size_t prte_pmix422_forget_groups_of(const char *nspace);

/* pmix422/groups.c: a group operation's tracker taken off PMIx's list for the repairs to end (its
 * timers stopped), its group record dropped, and its callers answered `status` one loop step from
 * now (the tracker released then). */
void prte_pmix422_take_over_group(pmix_server_trkr_t *trk);
void prte_pmix422_drop_group_record(pmix_server_trkr_t *trk);
void prte_pmix422_answer_group_soon(pmix_server_trkr_t *trk, pmix_status_t status);
/* pmix422/group_timeouts.c: stops the time of this node's part of the operation, if it runs. */
void prte_pmix422_forget_group_timer(const pmix_server_trkr_t *trk);

#endif
