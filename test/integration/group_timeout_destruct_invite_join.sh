#!/bin/sh
# Issue 46 item 10: PMIX_TIMEOUT on a group destruct, invite and join that one member never takes
# part in. group_timeout and group_timeout_shared_nodes prove it for construct.
#
# Destruct: 2 local nodes, 4 ranks by node (0 and 2 on node1, 1 and 3 on node2). All construct;
# rank 3 never destructs. Ranks 0-2 destruct with a 2 s PMIX_TIMEOUT and must be refused
# PMIX_ERR_TIMEOUT in 1.5-10 s. Both of the workaround's paths are taken: on node2, where rank 3
# never calls, PMIx 4.2.2 never hands the destruct to the host and pmix422/group_timeouts.c times
# rank 1 itself; on node1 the DVM's collective keeps the time. Without the workaround PMIx's own
# timer crashes node2's daemon or leaves its server spinning; without the DVM's time limit node1's
# callers wait for ever.
#
# Invite and join: PMIx 4.2.2's client library reads PMIX_TIMEOUT on PMIx_Group_invite and
# PMIx_Group_join and does nothing with it (it never reaches a server: the invitation and the
# answer are events whose info the library builds itself). The join returns once its answer is
# sent, and the invite once every invitee accepted. So the DVM cannot time them; what it owes is
# not to wedge: the leader, whose invite never returns, aborts by raising PMIX_GROUP_CONSTRUCT_ABORT
# (docs/user-guide.md, "Groups"), every rank hears it, the job ends, and the DVM goes on serving
# groups. The test asserts what 4.2.2 does, so that a PMIx that honours the attribute shows here.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 2 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# ---- destruct ----
timeout 120 "$PRUN" -n 4 --map-by node "$CLIENTS/group" --id td --destruct-timeout 2 --late-rank 3 \
    --late-in-destruct --late-until "$TEST_TMP/release" --expect-error >"$TEST_TMP/td.out" 2>"$TEST_TMP/td.err" &
job=$!
# Rank 3 leaves (normally, without destructing) once the three callers have their answer.
wait_for_lines "$TEST_TMP/td.out" '^group destruct took rank' 3 1200 "$job"
: >"$TEST_TMP/release"
wait "$job"
job_status=$?
for r in 0 1 2; do
    took=$(sed -n "s/^group destruct took rank $r: \([0-9]*\) ms$/\1/p" "$TEST_TMP/td.out")
    if grep -q "^group destruct refused rank $r: TIMEOUT$" "$TEST_TMP/td.out" && [ -n "$took" ] &&
        [ "$took" -ge 1500 ] && [ "$took" -le 10000 ]; then
        pass "destruct: rank $r was refused PMIX_ERR_TIMEOUT after $took ms (limit 2 s)"
    else
        fail "destruct: rank $r: $(grep "rank $r" "$TEST_TMP/td.out" | tr '\n' ' ')"
    fi
done
[ "$job_status" = 0 ] && pass "destruct: the job ended normally once rank 3 left" ||
    { fail "destruct: the job exited $job_status"; sed 's/^/    /' "$TEST_TMP/td.err"; }
if grep -q "^\[node2\].*group td destruct: not complete within the 2 s.*1 caller(s) on this node answered" \
    "$TEST_TMP/prte.err"; then pass "destruct: node2's daemon timed rank 1 out, rank 3 never having called"; else
    fail "destruct: node2's daemon did not say it timed out rank 1"; fi
# Whichever daemon's time is up first (node1's collective, or node2 for rank 1) ends the collective
# on every daemon: before, node2's answer left node1's callers waiting until rank 1 ended, which
# they then took for a member that never called (PMIX_ERR_PROC_TERMINATED_WITHOUT_SYNC).
if grep -q "allgather .*group td destruct.*not complete within the 2\( s\|000 ms\) its caller allowed (PMIX_TIMEOUT).*ending it on every participant" \
    "$TEST_TMP/prte.err"; then pass "destruct: the DVM's collective ended at the caller's limit"; else
    fail "destruct: no time-limit message of the DVM's collective"; fi
td_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | head -1)
wait_for_lines "$TEST_TMP/prte.err" "job $td_ns released; still held" 3 100
held=$(grep "job $td_ns released; still held" "$TEST_TMP/prte.err")
if [ -n "$held" ] && ! echo "$held" | grep -qv ", 0 collective(s),"; then
    pass "destruct: no collective left on any daemon"; else fail "destruct: collective state after the job: $held"; fi

# ---- invite and join ----
timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/invite" --id ti --timeout 2 --silent-invitee 2 \
    >"$TEST_TMP/ti.out" 2>"$TEST_TMP/ti.err"
ti_status=$?
[ "$ti_status" = 0 ] && pass "invite: the job ended (exit 0), no hang" ||
    { fail "invite: prun exited $ti_status (124: it hung)"; sed 's/^/    /' "$TEST_TMP/ti.out" "$TEST_TMP/ti.err"; }
expect_line ti out "invite silent rank 2"
# 4.2.2: the join returns at once, its answer sent (RFC 0033 would have it wait for the group and
# fail after 2 s); the invite never returns, so the leader aborts.
took=$(sed -n 's/^invite join rank 1: SUCCESS after \([0-9]*\) ms$/\1/p' "$TEST_TMP/ti.out")
if [ -n "$took" ] && [ "$took" -lt 1500 ]; then
    pass "join: PMIx 4.2.2 returns once the answer is sent ($took ms), PMIX_TIMEOUT unused"
else
    fail "join: not 4.2.2's behaviour: $(grep '^invite join' "$TEST_TMP/ti.out")"
fi
if grep -q "^invite no invite-return rank 0$" "$TEST_TMP/ti.out"; then
    pass "invite: PMIx 4.2.2's invite never returns on PMIX_TIMEOUT (12 s waited)"
else
    fail "invite: not 4.2.2's behaviour: $(grep '^invite done' "$TEST_TMP/ti.out")"
fi
for r in 1 2; do
    n=$(grep -c "^invite event rank $r: GROUP-CONSTRUCT-ABORT " "$TEST_TMP/ti.out")
    [ "$n" = 1 ] && pass "invite: rank $r heard the leader's abort once" ||
        fail "invite: rank $r heard the abort $n time(s)"
done

# ---- the DVM carries on ----
if grep -q "was lost\|Segmentation fault" "$TEST_TMP/prte.err"; then
    fail "a daemon was lost: $(grep "was lost\|Segmentation fault" "$TEST_TMP/prte.err" | head -3)"
else pass "no daemon was lost"; fi
run next timeout 60 "$PRUN" -n 4 --map-by node "$CLIENTS/group" --id td --timeout 5 --destruct-timeout 5
expect_status next 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/next.out")" = 4 ] &&
    pass "the same group id again, with time limits everyone meets, on both nodes" ||
    fail "after the timeouts: $(cat "$TEST_TMP/next.out" "$TEST_TMP/next.err")"
run accept timeout 60 "$PRUN" -n 3 --map-by node "$CLIENTS/invite" --id ti-after
expect_status accept 0
expect_line accept out "invite done rank 0: SUCCESS"
finish
