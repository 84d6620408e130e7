#!/bin/sh
# Issue 13 item 2: PMIX_GROUP_LEADER on a collective construct across 3 local nodes, one rank on
# each, rank 0 (node1) the leader, in a job that carries on after a failure (--enable-recovery).
# RFC 0033: a member that ends before it joins is told to the leader alone (without a leader every
# member hears: group_member_ended), and the leader's end during the construct is told to the
# others as PMIX_GROUP_LEADER_FAILED. Only node1's daemon knows rank 0 leads (PMIx 4.2.2 passes the
# directive to the leader's own server only); it tells the other daemons.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# start_case NAME ARGS...: the group client under prun --enable-recovery, in the background ($job);
# returns once node1 and node2 have contributed to the construct (ranks 0 and 1 are in it).
start_case() {
    name=$1
    shift
    timeout 120 "$PRUN" --enable-recovery -n 3 --map-by node "$CLIENTS/group" --id "$name" --leader 0 "$@" \
        >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job=$!
    for node in node1 node2; do
        wait_for_line "$TEST_TMP/prte.err" "^\[$node\].*allgather .*group $name construct.*from this daemon" ||
            fail "$name: $node never contributed"
    done
}

# only_rank NAME KIND RANK: the KIND-failed event was heard by rank RANK (group_event_once counts).
only_rank() {
    n=$(grep -c "^group $2 failed rank $3: " "$TEST_TMP/$1.out")
    [ "$n" = 1 ] && pass "$1: rank $3 heard it, once" || fail "$1: rank $3 heard it $n time(s)"
}

# ---- rank 2 is killed before it joins: only the leader hears PMIX_GROUP_INVITE_FAILED ----
start_case hears --late-rank 2 --expect-error
wait_for_lines "$TEST_TMP/hears.out" '^group late rank' 1 300 "$job"
kill -9 "$(sed -n 's/^group late rank 2 waits, pid \([0-9]*\)$/\1/p' "$TEST_TMP/hears.out")"
ended_by_kill hears
n=$(grep -c "^group refused rank [01]: PROC TERMINATED WITHOUT SYNC$" "$TEST_TMP/hears.out")
[ "$n" = 2 ] && pass "hears: both survivors' construct returned PMIX_ERR_PROC_TERM_WO_SYNC" ||
    fail "hears: $n of 2 constructs returned it"
group_event_once hears invite 1 2
only_rank hears invite 0
grep -q "^group no invite-failed event rank 1$" "$TEST_TMP/hears.out" && pass "hears: rank 1, not the leader, heard nothing" ||
    fail "hears: rank 1 did not report hearing nothing"
grep -q "^\[node1\].*group hears construct: telling its leader .*:0 that .*:2 ended before it joined" "$TEST_TMP/prte.err" &&
    pass "hears: node1's daemon told the leader" || fail "hears: node1 did not log telling the leader"
nothing_held hears

# ---- the leader is killed in the construct: ranks 1 and 2 hear PMIX_GROUP_LEADER_FAILED; rank 2,
# ---- which waited for it, joins; the construct completes, and the destruct fails (the leader is
# ---- gone) instead of waiting ----
start_case dies --late-rank 2 --after-leader-failed
kill -9 "$(sed -n 's/^group rank 0 pid \([0-9]*\)$/\1/p' "$TEST_TMP/dies.out")"
ended_by_kill dies
group_event_once dies leader 2 0
only_rank dies leader 1
only_rank dies leader 2
n=$(grep -c "^group destruct rank [12]: PROC TERMINATED WITHOUT SYNC$" "$TEST_TMP/dies.out")
[ "$n" = 2 ] && pass "dies: both survivors' destruct returned PMIX_ERR_PROC_TERM_WO_SYNC" ||
    fail "dies: $n of 2 destructs returned it"
grep -q "^\[node1\].*group dies: leader .*:0 ended during the construct; telling" "$TEST_TMP/prte.err" &&
    pass "dies: node1's daemon, where the leader ran, told the others" || fail "dies: node1 did not log it"
nothing_held dies
finish
