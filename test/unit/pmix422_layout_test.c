/* The private layout of OpenPMIx 4.2.2 that the repairs (src/pmix/pmix422/) read and write: every
 * field they touch, at the offset it had in Debian's libpmix-dev 4.2.2-1+deb12u1 (x86_64) when the
 * repairs were written and checked. A libpmix-dev whose headers move any of them fails here: the
 * repairs must be read again against that version's source before its build id is trusted
 * (configure records the build id; switch.c refuses any other at run time). */
#include <stddef.h>
#include <stdio.h>

#ifdef PRTE_PMIX422_PRIVATE_HEADERS
#include "pmix/pmix422/private.h"

struct layout {
    const char *what;
    size_t actual;
    size_t expected;
};

#define FIELD(T, f, n) {#T "." #f, offsetof(T, f), n}
#define SIZE(T, n) {"sizeof " #T, sizeof(T), n}

static const struct layout layouts[] = {
    FIELD(pmix_server_trkr_t, super, 0),
    FIELD(pmix_server_trkr_t, id, 272),
    FIELD(pmix_server_trkr_t, type, 280),
    FIELD(pmix_server_trkr_t, pcs, 552),
    FIELD(pmix_server_trkr_t, npcs, 560),
    FIELD(pmix_server_trkr_t, event_active, 264),
    FIELD(pmix_server_trkr_t, ev, 136),
    FIELD(pmix_server_trkr_t, host_called, 265),
    FIELD(pmix_server_trkr_t, local, 266),
    FIELD(pmix_server_trkr_t, def_complete, 1040),
    FIELD(pmix_server_trkr_t, local_cbs, 1048),
    FIELD(pmix_server_trkr_t, nlocal, 1304),
    FIELD(pmix_server_trkr_t, info, 1312),
    FIELD(pmix_server_trkr_t, ninfo, 1320),
    FIELD(pmix_server_trkr_t, cbdata, 1608),
    SIZE(pmix_server_trkr_t, 1616),
    FIELD(pmix_group_t, super, 0),
    FIELD(pmix_group_t, grpid, 136),
    FIELD(pmix_group_t, members, 144),
    FIELD(pmix_group_t, nmbrs, 152),
    SIZE(pmix_group_t, 160),
    FIELD(pmix_server_caddy_t, peer, 296),
    FIELD(pmix_server_caddy_t, hdr, 280),
    SIZE(pmix_server_caddy_t, 320),
    FIELD(pmix_peer_t, info, 120),
    FIELD(pmix_peer_t, nptr, 112),
    FIELD(pmix_peer_t, sd, 148),
    FIELD(pmix_peer_t, send_ev_active, 288),
    FIELD(pmix_peer_t, recv_ev_active, 424),
    SIZE(pmix_peer_t, 1488),
    FIELD(pmix_rank_info_t, super, 0),
    FIELD(pmix_rank_info_t, pname, 144),
    SIZE(pmix_rank_info_t, 184),
    FIELD(pmix_namespace_t, super, 0),
    FIELD(pmix_namespace_t, nspace, 136),
    FIELD(pmix_namespace_t, ranks, 200),
    SIZE(pmix_namespace_t, 1808),
    FIELD(pmix_server_globals_t, clients, 256),
    FIELD(pmix_server_globals_t, collectives, 408),
    FIELD(pmix_server_globals_t, groups, 1696),
    SIZE(pmix_server_globals_t, 2824),
    FIELD(pmix_globals_t, mypeer, 328),
    FIELD(pmix_globals_t, evbase, 376),
    FIELD(pmix_globals_t, nspaces, 2456),
    SIZE(pmix_globals_t, 2944),
    /* tool_answers.c: a tool's pending connection, whose records it completes before the answer */
    FIELD(pmix_pending_connection_t, sd, 244),
    FIELD(pmix_pending_connection_t, flag, 249),
    FIELD(pmix_pending_connection_t, peer, 664),
    FIELD(pmix_pending_connection_t, uid, 728),
    FIELD(pmix_pending_connection_t, gid, 732),
    FIELD(pmix_pending_connection_t, proc_type, 736),
    SIZE(pmix_pending_connection_t, 744),
    FIELD(pmix_rank_info_t, uid, 160),
    FIELD(pmix_rank_info_t, gid, 164),
    /* group_timeouts.c: the wildcard receive it wraps, and the message buffers it reads and writes */
    FIELD(pmix_ptl_base_t, posted_recvs, 8),
    FIELD(pmix_ptl_posted_recv_t, tag, 264),
    FIELD(pmix_ptl_posted_recv_t, cbfunc, 272),
    SIZE(pmix_ptl_posted_recv_t, 288),
    FIELD(pmix_buffer_t, type, 112),
    FIELD(pmix_buffer_t, base_ptr, 120),
    FIELD(pmix_buffer_t, unpack_ptr, 136),
    FIELD(pmix_buffer_t, bytes_used, 152),
    SIZE(pmix_buffer_t, 160),
};

int main(void)
{
#if defined(__x86_64__)
    int failures = 0;
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
        if (layouts[i].actual != layouts[i].expected) {
            printf("FAIL: %s is at %zu, the repairs were checked with %zu\n", layouts[i].what, layouts[i].actual,
                   layouts[i].expected);
            failures++;
        }
    }
    printf("%zu field(s) and size(s) checked, %d moved\n", sizeof(layouts) / sizeof(layouts[0]), failures);
    return failures == 0 ? 0 : 1;
#else
    printf("SKIP: the recorded layout is x86_64's\n");
    return 77;
#endif
}

#else /* built without PMIx's private headers: no repairs to check */

int main(void)
{
    printf("SKIP: prte was built without OpenPMIx 4.2.2's private headers\n");
    return 77;
}

#endif
