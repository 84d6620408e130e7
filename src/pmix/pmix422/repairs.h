/* The one interface between prte and its repairs of Debian's OpenPMIx 4.2.2 (this directory, the
 * only code built against PMIx's private headers). A newer PMIx that fixes these defects means
 * deleting src/pmix/pmix422/ and the calls to this header (docs/architecture.md, "PMIx 4.2.2").
 *
 * Repairs for records that OpenPMIx 4.2.2's server keeps for good after every tool connection
 * and every group operation, which no public call releases (issue 14 item 3, issue 13), and for
 * group operations it leaves waiting for ever when a member ends. Implemented in C against PMIx's
 * private headers (the .c files of this directory, each of which includes pmix422/private.h);
 * everything else in prte uses only the public API.
 *
 * Every function must be called on PMIx's progress thread (from inside a server upcall) unless it
 * says otherwise.
 * When the loaded libpmix is not the very build the repairs were checked against (or prte was
 * built without PMIx's private headers, or the host switched them off), they do nothing and say
 * so through prte_pmix422_repairs_state(). */
#ifndef PRTE_PMIX_PMIX422_REPAIRS_H
#define PRTE_PMIX_PMIX422_REPAIRS_H

#include <stddef.h>

#include <pmix_common.h>
#include <pmix_server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Any thread (switch.c). NULL when the repairs act; otherwise why they do not: prte built without
 * PMIx's private headers, another libpmix version, a libpmix whose GNU build id is not the one
 * configure recorded, or switched off by the host. */
const char *prte_pmix422_repairs_state(void);
/* Before the PMIx server starts: the repairs do nothing from now on; `why` (kept, not copied) is
 * what prte_pmix422_repairs_state() says. */
void prte_pmix422_repairs_switch_off(const char *why);
/* The build id configure recorded of the libpmix the repairs were checked against ("" if none). */
const char *prte_pmix422_checked_build_id(void);

/* The host's iof_pull upcall was handed `cbdata` (PMIx's request) and answers it at once with
 * PMIX_OPERATION_SUCCEEDED. PMIx 4.2.2 then never releases the client request behind it (and with
 * it a hold on the tool's connection record), nor, for a deregistration (`stop` true), the request's
 * directives. This arranges both to be released once PMIx has sent its answer. */
void prte_pmix422_after_iof_request(void *cbdata, int stop);

/* Testing only: told, on PMIx's thread, that the tool to be named `name` hung up before its
 * answer (`gone` 1) or did not within 5 s (`gone` 0); the answer goes out next. */
typedef void (*prte_pmix422_tool_hung_up_fn)(const pmix_proc_t *name, int gone);

/* Any thread: the host's answer to a tool's connection (its tool-connection upcall's `cbfunc`
 * and `cbdata`; `name` may be NULL for a refusal). PMIx 4.2.2's handling of that answer freed a
 * record twice whenever it failed (the tool gone during its handshake, or refused): the master
 * died of SIGSEGV (pmix422/tool_answers.c). This completes the records first, on PMIx's thread,
 * so that the failure is handled cleanly, then calls `cbfunc`. With `hung_up_first` (tests only)
 * it answers only once the tool's end of the connection has closed. Returns 1 when it will
 * answer, 0 when the repairs do not apply and the caller must call `cbfunc` itself. */
int prte_pmix422_answer_tool(pmix_status_t status, const pmix_proc_t *name, pmix_tool_connection_cbfunc_t cbfunc,
                             void *cbdata, prte_pmix422_tool_hung_up_fn hung_up_first);

/* Any thread: the host's answer to a query (its query upcall's `cbfunc` and `cbdata`, with the
 * arguments a pmix_info_cbfunc_t takes). PMIx 4.2.2's query callback packs and queues its reply on
 * the thread that calls it, racing its own progress thread (pmix422/info_answers.c); this calls
 * `cbfunc` on PMIx's thread instead. Returns 1 when it will, 0 when the repairs do not apply and
 * the caller must call `cbfunc` itself. */
int prte_pmix422_answer_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t cbfunc,
                             void *cbdata, pmix_release_cbfunc_t release, void *release_cbdata);

/* (pmix422/attribute_queries.c, no call needed: it defines PMIx_Query_info_nb, which libpmix calls
 * through its PLT.) Queries for PMIX_QUERY_ATTRIBUTE_SUPPORT reach their caller with the caller's
 * own callback data: PMIx 4.2.2 hands back its query record instead, and a server (the master,
 * a daemon) then died of SIGSEGV on a tool's `pattrs`. */

/* Releases the connection, rank and namespace records PMIx 4.2.2 keeps for every tool in
 * namespace `tools_nspace` whose connection has ended. Returns how many tools' records were
 * released; *connected (if not NULL) is set to the number of tools still connected. */
size_t prte_pmix422_release_departed_tools(const char *tools_nspace, size_t *connected);

/* Any thread: PMIx_server_deregister_nspace(nspace), once PMIx's server has handled the end of
 * every connection of the namespace's clients (at most 5 s), and after releasing the collectives
 * held for the job (prte_pmix422_hold_collectives), which no connection's end can reach then.
 * Without the repairs, it deregisters at once. */
void prte_pmix422_deregister_nspace(const char *nspace);

/* The host's thread, just before PMIx_server_finalize: a step on PMIx's thread marks the server as
 * finalizing (waited for, at most 2 s), after which the repairs call none of PMIx's server
 * functions from that thread (a deregistration still pending is dropped; finalize forgets every
 * namespace anyway). PMIx_server_finalize holds PMIx's global lock while it stops PMIx's thread,
 * and such a call, which takes that lock first, waited for it for ever: prte hung on SIGTERM in
 * about 1 run in 8 with a job running (its clients' deregistration still pending). */
void prte_pmix422_before_server_finalize(void);

/* Any thread: the local processes of job `nspace` are about to be killed. On PMIx's thread, every
 * collective of this node's processes of that job alone that PMIx completes itself (not handed to
 * the host) is marked as handed, then
 * `done(arg)` is called (there). PMIx 4.2.2's lost_connection completes a collective of this
 * node's processes each time a participant's connection ends after the others called, not only
 * the first time: with several killed at once it completed one fence twice, and the second
 * completion used the tracker the first had freed (the server's thread then blocked for ever, in
 * about 1 job in 20 ended by PMIx_Abort while the others were in a fence). A marked collective is
 * left alone by lost_connection; one PMIx had already completed goes as usual. Those still held
 * are released by prte_pmix422_deregister_nspace. Returns 0, without calling `done`, when the
 * repairs do not apply. */
int prte_pmix422_hold_collectives(const char *nspace, void (*done)(void *), void *arg);

/* Group operations (pmix422/groups.c). `cbdata` is what the host's group upcall was handed:
 * PMIx's tracker of one construct or destruct. */

/* Call from the upcall when the host will answer: PMIx 4.2.2 does not mark a group tracker as
 * handed to the host (it does for fences), so it could not be told from one left stuck. */
void prte_pmix422_group_handed_to_host(void *cbdata);

/* The leader a construct declares (PMIX_GROUP_LEADER): PMIx 4.2.2 keeps only the directives of
 * the first member of this node to call, and hands the host those without saying whose; this says
 * whose. 1 with *leader set when that member declared itself leader, else 0 (also when a later
 * caller did: PMIx 4.2.2 dropped its directives). */
int prte_pmix422_group_leader(void *cbdata, pmix_proc_t *leader);

/* Call from the release function the host passes with its answer. PMIx 4.2.2's _grpcbfunc calls
 * that function last, after it has queued every member's reply and taken the tracker off its list,
 * and never releases the tracker itself (its PMIX_RELEASE is commented out): the tracker and every
 * member's request (about 9 KB a construct) stayed for good. With `failed`, a construct's group
 * record goes too, which PMIx keeps after a failed construct so that its id could not be used
 * again. Returns 1 if it released the tracker, 0 if it kept it (see pmix422/groups.c for when). */
int prte_pmix422_release_group_tracker(void *cbdata, int failed);

/* How end_groups_waiting_for reports each group operation it ends (on PMIx's thread): its id,
 * whether it was a construct, whether the construct's directives say PMIX_GROUP_OPTIONAL, the
 * process that ended, the leader the construct declared (see prte_pmix422_group_leader; NULL if
 * none), the members it names and how many callers it answers. It reports before it answers
 * them, so that an event the report raises reaches them first. The report returns nonzero when
 * the operation goes on without the process: it is then handed to the host right after the
 * report instead of being answered with an error. */
typedef int (*prte_pmix422_group_ended_fn)(const char *id, int construct, int optional, const pmix_proc_t *ended,
                                           const pmix_proc_t *leader, const pmix_proc_t *members, size_t nmembers,
                                           size_t callers);

/* Called on PMIx's thread once it has read everything the ended process sent (end_groups_waiting_for). */
typedef void (*prte_pmix422_connection_closed_fn)(const pmix_proc_t *ended);

/* Any thread: local process `proc` has ended (it was reaped). Once PMIx has seen its connection
 * close, every group construct or destruct on this node that then waits for nobody but was never
 * handed to the host (PMIx 4.2.2 hands fences and connects over after such a loss, not groups) is
 * answered with `status` to each member that called, and its records are released; one that goes
 * on without the process (the report says) is handed to the host instead, which answers it as
 * any other.
 * Then `then` (if not NULL) is called, after every event the process raised has reached the host.
 * With `forget`, or when an optional operation named it, the client is then deregistered: PMIx
 * 4.2.2 counts a registered client as one of this node's participants in every group operation
 * naming it that starts later, and so would wait for it for ever. Returns 1 when `then` will be
 * called, 0 when the repairs do not apply (or cannot be scheduled) and the caller must go on
 * itself. */
int prte_pmix422_end_groups_waiting_for(const pmix_proc_t *proc, int status, int forget,
                                        prte_pmix422_group_ended_fn report, prte_pmix422_connection_closed_fn then);

/* How abort_construct reports each construct of the group on this node (on PMIx's thread): its
 * members, whether PMIx had handed it to the host (1: the host must then end it, PMIx waits for
 * its answer; 0: answered here), how many of this node's members had called, and the caller's
 * `arg`. When there was none, it reports once with no members and `handed` -1. Either way `arg` is
 * passed to the last report. */
typedef void (*prte_pmix422_construct_aborted_fn)(const char *id, const pmix_proc_t *members, size_t nmembers,
                                                  int handed, size_t callers, void *arg, int last);

/* Any thread: a member aborted the construct of group `id` (PMIX_GROUP_CONSTRUCT_ABORT). On PMIx's
 * thread, each construct of that id on this node is reported; one PMIx had not handed to the host
 * yet (some members here had not called) is answered with `status` to each caller, and its records
 * released. Returns 1 when it will run, 0 when the repairs do not apply. */
int prte_pmix422_abort_construct(const char *id, int status, prte_pmix422_construct_aborted_fn report, void *arg);

/* PMIX_TIMEOUT of group constructs and destructs (pmix422/group_timeouts.c). OpenPMIx 4.2.2 arms
 * a timer for it once per member that calls, re-assigning a pending libevent timer, and its
 * server's thread spins for ever once that time has passed (two members on one node were enough);
 * on a node where a member never calls, its timer's handler crashes the daemon. From this call on,
 * PMIx never sees the key: every group construct or destruct a client sends reaches it with
 * PMIX_TIMEOUT renamed PRTE_PMIX422_GROUP_TIMEOUT (same value), which is what the host's group
 * upcall finds among the directives and times. Until the operation is handed to the host (some of
 * this node's members have not called), the repairs time it: when the time is up, counted from the
 * first member here to call, those that called are answered PMIX_ERR_TIMEOUT and `report` is
 * called first (on PMIx's thread) with the group id, whether it was a construct, its members (as
 * PMIx's tracker holds them), how many callers were answered and the seconds. Call once, after
 * PMIx_server_init. Returns 1 when PMIx's handler of client messages was taken over, 0 when the
 * repairs do not apply or it was not found (then PMIx sees PMIX_TIMEOUT as before). */
#define PRTE_PMIX422_GROUP_TIMEOUT "prte.pmix422.group.timeout"
typedef void (*prte_pmix422_group_timed_out_fn)(const char *id, int construct, const pmix_proc_t *members,
                                                size_t nmembers, size_t callers, unsigned seconds);
int prte_pmix422_time_group_operations(prte_pmix422_group_timed_out_fn report);

#ifdef __cplusplus
}
#endif

#endif
