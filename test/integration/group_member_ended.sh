#!/bin/sh
# Issue 13 item 5: a member process that dies before it joins a PMIx group construct or destruct,
# in a job that carries on after a failure (--enable-recovery). 3 local nodes (rml_radix 2). The
# others used to wait for ever: on the dead rank's node PMIx 4.2.2 never hands the operation to the
# DVM once a member's connection is lost, and the other nodes waited for that node's share. Now
# every survivor's call returns PMIX_ERR_PROC_TERM_WO_SYNC (a construct's survivors hear
# PMIX_GROUP_INVITE_FAILED naming the dead rank, once each), no collective state is left, and the
# same group id works again (PMIx 4.2.2 kept a failed construct's group record, so a later
# construct of that id waited for ever); also when the member died before any other called.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

# PMIx's own log of each group request its server receives ("recvd grpconstruct cmd"), on the
# daemons' stderr, which prte passes on.
PMIX_MCA_pmix_server_connect_verbose=2
export PMIX_MCA_pmix_server_connect_verbose
start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# run_case NAME PRUN-ARGS...: kill_late_when, the survivors expecting their operation to fail.
run_case() { kill_late_when "$@" --expect-error; }

# refused NAME WHAT COUNT: COUNT survivors' WHAT ("construct" or "destruct") returned the error.
refused() {
    prefix="group refused rank"
    [ "$2" = destruct ] && prefix="group destruct refused rank"
    n=$(grep -c "^$prefix [0-9]*: PROC TERMINATED WITHOUT SYNC$" "$TEST_TMP/$1.out")
    if [ "$n" = "$3" ]; then pass "$1: all $3 survivors' $2 returned PMIX_ERR_PROC_TERM_WO_SYNC"; else
        fail "$1: $n of $3 survivors' $2 returned it"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; fi
}

# ---- construct; the dead rank 3 shares node1 with rank 0, which called ----
# --map-by node: node1 has ranks 0 and 3, node2 rank 1, node3 rank 2.
waits="^\[node1\].*recvd.grpconstruct.cmd ^\[node2\].*allgather.*group.beside.construct.*from.this.daemon ^\[node3\].*allgather.*group.beside.construct.*from.this.daemon"
run_case beside -n 4 --map-by node "$CLIENTS/group" --id beside --late-rank 3
refused beside construct 3
group_event_once beside invite 3 3
grep -q "^\[node1\].*group beside construct: member .*:3 ended before it took part; 1 caller(s) on this node answered" \
    "$TEST_TMP/prte.err" && pass "beside: node1's PMIx answered rank 0 (the construct it never handed over)" ||
    fail "beside: node1 did not end its construct"
nothing_held beside

# ---- construct; the dead rank 2 is alone on node3, which never joins the collective ----
waits="^\[node1\].*allgather.*group.alone.construct.*from.this.daemon ^\[node2\].*allgather.*group.alone.construct.*from.this.daemon"
run_case alone -n 3 --map-by node "$CLIENTS/group" --id alone --late-rank 2
refused alone construct 2
group_event_once alone invite 2 2
grep -q "allgather .*group alone construct#1: failed: process .*:2 ended before it took part" "$TEST_TMP/prte.err" &&
    pass "alone: the collective failed, naming the dead rank" || fail "alone: no failed collective naming rank 2"
nothing_held alone

# ---- destruct; the dead rank 2 constructed, then died instead of destructing ----
waits="^\[node1\].*allgather.*group.undone.destruct.*from.this.daemon ^\[node2\].*allgather.*group.undone.destruct.*from.this.daemon"
run_case undone -n 3 --map-by node "$CLIENTS/group" --id undone --late-rank 2 --late-in-destruct
refused undone destruct 2
grep -q "^group invite failed" "$TEST_TMP/undone.out" && fail "undone: a destruct raised PMIX_GROUP_INVITE_FAILED" ||
    pass "undone: no PMIX_GROUP_INVITE_FAILED for a destruct (the member had joined)"
nothing_held undone

# ---- construct; rank 3 (beside rank 0 on node1) leaves normally without joining ----
# Not a failure: nothing is broadcast for it as such, but node1 answers rank 0 and the collective
# then fails on node2 and node3 too, instead of waiting for node1's share.
node1_calls=$(grep -c "^\[node1\].*recvd grpconstruct cmd" "$TEST_TMP/prte.err")
timeout 120 "$PRUN" -n 4 --map-by node "$CLIENTS/group" --id left --late-rank 3 --late-until "$TEST_TMP/leave" \
    --expect-error >"$TEST_TMP/left.out" 2>"$TEST_TMP/left.err" &
job=$!
wait_for_lines "$TEST_TMP/left.out" '^group late rank' 1 600 "$job"
wait_for_lines "$TEST_TMP/prte.err" "^\[node1\].*recvd grpconstruct cmd" $((node1_calls + 1)) 100 "$job"
in_collective left construct node2 node3
: >"$TEST_TMP/leave"
wait "$job"
status=$?
[ $status = 0 ] && pass "left: the job ended normally, no hang" || fail "left: prun exited $status (124: it hung)"
refused left construct 3
group_event_once left invite 3 3

# ---- construct; rank 3 (beside rank 0 on node1) is killed before any member calls ----
# PMIx 4.2.2 counted the dead client as one of node1's members of the later construct when members
# are listed by rank (a whole job's count it does lower): rank 0 waited for ever (node1 now
# deregisters a client that ended abnormally).
timeout 120 "$PRUN" --enable-recovery -n 4 --map-by node "$CLIENTS/group" --id after --by-rank --late-rank 3 \
    --call-after "$TEST_TMP/after-call" --expect-error >"$TEST_TMP/after.out" 2>"$TEST_TMP/after.err" &
job=$!
kill_then_call after node1
refused after construct 3
group_event_once after invite 3 3
nothing_held after

# ---- construct; rank 2, alone on node3, leaves normally without joining ----
# A normal end is not broadcast; node3's daemon, asked to watch the members of this operation across
# nodes, tells the collectives of it, and the others' construct fails instead of waiting.
leave_late quit construct --expect-error
refused quit construct 2
group_event_once quit invite 2 2

# ---- destruct; rank 2, alone on node3, constructed, then left normally instead of destructing ----
# RFC 0033: the destruct "will return an error if any group process fails or terminates prior to
# calling PMIx_Group_destruct"; before the watch, the others waited for ever.
leave_late gone destruct --late-in-destruct --expect-error
refused gone destruct 2

# ---- the same ids again, all ranks alive: the failed constructs left no group record ----
for id in beside alone left after quit; do
    run "again_$id" timeout 60 "$PRUN" -n 4 --map-by node "$CLIENTS/group" --id "$id"
    expect_status "again_$id" 0
    [ "$(grep -c '^group ok rank' "$TEST_TMP/again_$id.out")" = 4 ] && pass "group id '$id' works again" ||
        fail "again_$id: $(cat "$TEST_TMP/again_$id.out" "$TEST_TMP/again_$id.err")"
done
finish
