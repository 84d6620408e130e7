#!/bin/sh
# Issue 13 item 5: a node hosting members dies during a PMIx group construct. 3 local nodes
# (and a fourth for the last case; rml_radix 2, elastic mode so that the DVM carries on without the
# node): ranks 0 and 1 construct,
# rank 2 (node3) never does; once the daemons of node1 and node2 are in the construct's collective,
# node3's daemon is killed. The collective fails on the survivors instead of waiting for node3, the
# job ends with an error (prun does not hang), no collective state is left on any daemon, and the
# next group works. With PMIX_GROUP_OPTIONAL, the lost node's member is left out instead; with
# PMIX_GROUP_NOTIFY_TERMINATION, a member lost before the destruct is told to the others, whose
# destruct completes without it.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 4 2 --prtemca prte_elastic_mode 1 --prtemca pmix_server_verbose 5 \
    --prtemca grpcomm_base_verbose 5
node3_daemon=$(daemon_pid 3)

timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id doomed --late-rank 2 \
    >"$TEST_TMP/doomed.out" 2>"$TEST_TMP/doomed.err" &
doomed=$!
if wait_for_line "$TEST_TMP/prte.err" "^\[node1\].*allgather .*group doomed construct.*from this daemon" &&
    wait_for_line "$TEST_TMP/prte.err" "^\[node2\].*allgather .*group doomed construct.*from this daemon"; then
    pass "node1 and node2 are in the construct's collective"
else
    fail "the construct's collective did not start on node1 and node2"
fi
kill -9 "$node3_daemon"
wait "$doomed"
doomed_status=$?
if [ $doomed_status != 0 ] && [ $doomed_status != 124 ]; then pass "the job ended with status $doomed_status, no hang"; else
    fail "the job exited $doomed_status"; sed 's/^/    /' "$TEST_TMP/doomed.out" "$TEST_TMP/doomed.err"; fi
if grep -q "allgather .*group doomed construct.*failed" "$TEST_TMP/prte.err"; then
    pass "the survivors' collective failed"; else fail "no failed collective in the log"; fi
doomed_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | head -1)
held=$(grep "job $doomed_ns released; still held" "$TEST_TMP/prte.err")
if [ -n "$held" ] && ! echo "$held" | grep -qv ", 0 collective(s),"; then
    pass "no collective left on the surviving daemons"; else fail "collective state after the job: $held"; fi

run next timeout 60 "$PRUN" -n 2 --map-by node "$CLIENTS/group" --id after-loss
expect_status next 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/next.out")" = 2 ] && pass "a group on the remaining nodes works" ||
    fail "after the loss: $(cat "$TEST_TMP/next.out" "$TEST_TMP/next.err")"

# ---- PMIX_GROUP_OPTIONAL: the lost node's member is left out instead ----
# Rank 0 (node1) constructs, rank 1 (node2) never does; node2's daemon is killed once node1's is
# in the collective. Rank 0's construct succeeds without rank 1, it hears the new membership, and
# its destruct succeeds (the job carries on after the loss: --enable-recovery).
node2_daemon=$(daemon_pid 2)
timeout 120 "$PRUN" --enable-recovery -n 2 --map-by node "$CLIENTS/group" --id spared --by-rank --optional \
    --late-rank 1 >"$TEST_TMP/spared.out" 2>"$TEST_TMP/spared.err" &
spared=$!
in_collective spared construct node1
kill -9 "$node2_daemon"
wait "$spared"
spared_status=$?
[ $spared_status != 124 ] && pass "spared: the job ended (status $spared_status), no hang" ||
    fail "spared: the job hung"
spared_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | tail -1)
grep -q "^group ok rank 0 iter 0 ctxid [0-9]*$" "$TEST_TMP/spared.out" &&
    pass "spared: rank 0 constructed the group without the lost rank 1, and destructed it" ||
    { fail "spared: rank 0 did not construct and destruct it"; sed 's/^/    /' "$TEST_TMP/spared.out" "$TEST_TMP/spared.err"; }
grep -q "^group membership rank 0: group spared members $spared_ns:0$" "$TEST_TMP/spared.out" &&
    pass "spared: rank 0 heard PMIX_GROUP_MEMBERSHIP_UPDATE listing itself alone" ||
    fail "spared: no membership update listing rank 0 alone"
grep -q "allgather .*group spared construct#1: complete, .*, 1 ended or lost process(es) left out" "$TEST_TMP/prte.err" &&
    pass "spared: the master completed the collective without the lost node" ||
    fail "spared: no collective completed without the lost node"

# ---- PMIX_GROUP_NOTIFY_TERMINATION: a member lost with its node after the construct ----
# Node1 and node4 remain: rank 0 (node1) and rank 1 (node4) construct; rank 1 waits instead of
# destructing, and node4's daemon is killed once rank 0 is in the destruct. Rank 0 hears
# PMIX_GROUP_MEMBER_FAILED naming rank 1, once, and its destruct completes without it.
node4_daemon=$(daemon_pid 4)
timeout 120 "$PRUN" --enable-recovery -n 2 --map-by node "$CLIENTS/group" --id told --notify-termination \
    --late-rank 1 --late-in-destruct >"$TEST_TMP/told.out" 2>"$TEST_TMP/told.err" &
told=$!
wait_for_lines "$TEST_TMP/told.out" '^group late rank' 1 600 "$told"
in_collective told destruct node1
kill -9 "$node4_daemon"
wait "$told"
told_status=$?
[ $told_status != 124 ] && pass "told: the job ended (status $told_status), no hang" || fail "told: the job hung"
told_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | tail -1)
heard=$(grep -c "^group member failed rank 0: member $told_ns:1 group told$" "$TEST_TMP/told.out")
[ "$heard" = 1 ] && [ "$(grep -c '^group member failed' "$TEST_TMP/told.out")" = 1 ] &&
    pass "told: rank 0 heard PMIX_GROUP_MEMBER_FAILED naming the lost rank 1, once" ||
    { fail "told: rank 0 heard it $heard time(s)"; sed 's/^/    /' "$TEST_TMP/told.out" "$TEST_TMP/told.err"; }
grep -q "^group ok rank 0 iter 0 ctxid [0-9]*$" "$TEST_TMP/told.out" &&
    pass "told: rank 0's destruct completed without the lost rank 1" ||
    fail "told: rank 0's destruct did not complete"
finish
