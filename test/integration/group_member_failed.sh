#!/bin/sh
# Issue 13, RFC 0033's PMIX_GROUP_NOTIFY_TERMINATION: when a member of a constructed group ends
# without leaving it (no destruct), the other members hear PMIX_GROUP_MEMBER_FAILED naming it,
# once each, on every node; and their destruct then completes without it ("the destruct tracker
# updated to account for the lack of participation ... the event will serve in place of return of
# an error"), also when the member ended normally alone on its node (which without the attribute
# is never told to the other nodes), or shared its node with a member that had called destruct.
# A group destructed before its members end raises nothing, and no daemon keeps a record of it.
# 3 local nodes; --map-by node puts rank 2 alone on node3 (rank 3, with -n 4, beside rank 0).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

# PMIx's own log of each destruct request its server receives ("recvd grpdestruct cmd").
PMIX_MCA_pmix_server_iof_verbose=2
export PMIX_MCA_pmix_server_iof_verbose
start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# heard NAME COUNT LATE: each of COUNT survivors heard PMIX_GROUP_MEMBER_FAILED naming rank LATE
# and group NAME exactly once, and their destruct succeeded.
heard() {
    group_event_once "$1" member "$2" "$3"
    n=$(grep -c "^group ok rank [0-9]* iter 0 ctxid [0-9]*$" "$TEST_TMP/$1.out")
    [ "$n" = "$2" ] && pass "$1: all $2 survivors' destruct completed without rank $3" ||
        { fail "$1: $n of $2 survivors' destruct completed"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; }
}

# start_case NAME PRUN-OPTIONS CLIENT-ARGS...: runs the group client (group NAME, 3 ranks, rank 2 late
# in its destruct) in the background as $job; returns once rank 2 waits and node1's and node2's
# members are in the destruct. PRUN-OPTIONS is one word list ("" for none).
start_case() {
    name=$1
    prun_options=$2
    shift 2
    # shellcheck disable=SC2086 # the options are meant to split into words
    timeout 120 "$PRUN" $prun_options -n 3 --map-by node "$CLIENTS/group" --id "$name" --late-rank 2 \
        --late-in-destruct --notify-termination "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job=$!
    wait_for_lines "$TEST_TMP/$name.out" '^group late rank' 1 600 "$job"
    in_collective "$name" destruct node1 node2
}

# records_gone NAME ID: once the job of group ID is deregistered, no daemon holds a group record.
records_gone() {
    ns=$(sed -n "s/.*group $2 construct over \([^:]*\):.*/\1/p" "$TEST_TMP/prte.err" | tail -1)
    # The master and the three daemons.
    wait_for_lines "$TEST_TMP/prte.err" "job $ns deregistered: .* group record(s) dropped" 4 100
    held=$(grep "job $ns deregistered: .* group record(s) dropped" "$TEST_TMP/prte.err")
    if [ -n "$ns" ] && [ "$(echo "$held" | grep -c ", 0 still held$")" = 4 ]; then
        pass "$1: no daemon still holds a group record"
    else
        fail "$1: after the job: $held"
    fi
}

# ---- rank 2 is killed after the construct, instead of destructing ----
start_case killed --enable-recovery
kill_late_member killed
ended_by_kill killed
heard killed 2 2
grep -q "^\[node3\].*group killed: member .*:2 ended without leaving it; telling the other members" \
    "$TEST_TMP/prte.err" && pass "killed: node3, the dead member's, raised the event" ||
    fail "killed: node3 did not say it raised the event"
records_gone killed killed

# ---- rank 3, beside rank 0 on node1, is killed instead of destructing: node1's PMIx held rank 0's
# destruct for it (PMIx 4.2.2 never hands a group operation over once a member's connection is
# lost); node1 hands it to the DVM, which completes it without rank 3 ----
node1_calls=$(grep -c "^\[node1\].*recvd grpdestruct cmd" "$TEST_TMP/prte.err")
timeout 120 "$PRUN" --enable-recovery -n 4 --map-by node "$CLIENTS/group" --id beside --by-rank --late-rank 3 \
    --late-in-destruct --notify-termination >"$TEST_TMP/beside.out" 2>"$TEST_TMP/beside.err" &
job=$!
wait_for_lines "$TEST_TMP/beside.out" '^group late rank' 1 600 "$job"
wait_for_lines "$TEST_TMP/prte.err" "^\[node1\].*recvd grpdestruct cmd" $((node1_calls + 1)) 100 "$job"
in_collective beside destruct node2 node3
kill_late_member beside
ended_by_kill beside
heard beside 3 3
grep -q "^\[node1\].*group beside destruct: member .*:3 ended before it took part; the 1 caller(s) on this node go on without it (PMIX_GROUP_NOTIFY_TERMINATION)" \
    "$TEST_TMP/prte.err" && pass "beside: node1 handed rank 0's destruct over without rank 3" ||
    fail "beside: node1 did not say it went on without rank 3"
records_gone beside beside

# ---- rank 2, alone on node3, leaves normally after the construct, without destructing ----
start_case quit "" --late-until "$TEST_TMP/quit-now"
: >"$TEST_TMP/quit-now"
wait "$job"
status=$?
[ $status = 0 ] && pass "quit: the job ended normally, no hang" || fail "quit: prun exited $status (124: it hung)"
heard quit 2 2
records_gone quit quit

# ---- with the attribute, a group destructed before its members end raises nothing ----
run done_right timeout 60 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id done-right --notify-termination
expect_status done_right 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/done_right.out")" = 3 ] && pass "done_right: all 3 constructed and destructed" ||
    fail "done_right: $(cat "$TEST_TMP/done_right.out" "$TEST_TMP/done_right.err")"
[ "$(grep -c "group done-right: recorded for PMIX_GROUP_NOTIFY_TERMINATION" "$TEST_TMP/prte.err")" = 3 ] &&
    [ "$(grep -c "group done-right: record dropped (destructed)" "$TEST_TMP/prte.err")" = 3 ] &&
    pass "done_right: each node recorded the group at its construct and dropped it at its destruct" ||
    fail "done_right: records: $(grep 'group done-right: rec' "$TEST_TMP/prte.err")"
grep -q "group done-right: member .* ended without leaving it" "$TEST_TMP/prte.err" &&
    fail "done_right: a member's normal end after the destruct raised PMIX_GROUP_MEMBER_FAILED" ||
    pass "done_right: no PMIX_GROUP_MEMBER_FAILED after the destruct"
records_gone done_right done-right
finish
