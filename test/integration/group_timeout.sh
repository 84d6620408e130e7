#!/bin/sh
# Issue 13: PMIX_TIMEOUT on a group construct that one member never joins. 3 local nodes
# (rml_radix 2), one rank each: ranks 0 and 1 construct with a 2 s PMIX_TIMEOUT, rank 2 (node3) never
# does. Both callers get PMIX_ERR_TIMEOUT, the DVM ends the collective on every daemon (none keeps
# it), and no daemon is lost: before, PMIx 4.2.2's own timer fired on node1 and node2 and its
# handler crashed the daemon (it takes the collective's tracker for a request), which ended the DVM.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id slow --timeout 2 --late-rank 2 \
    --late-until "$TEST_TMP/release" --expect-error >"$TEST_TMP/slow.out" 2>"$TEST_TMP/slow.err" &
slow=$!
# Rank 2 leaves once both callers have their answer (or after 120 s, failing the job).
wait_for_lines "$TEST_TMP/slow.out" '^group refused rank' 2 1200 "$slow"
: >"$TEST_TMP/release"
wait "$slow"
slow_status=$?
for r in 0 1; do
    if grep -q "^group refused rank $r: TIMEOUT$" "$TEST_TMP/slow.out"; then
        pass "rank $r's construct returned PMIX_ERR_TIMEOUT (\"TIMEOUT\")"
    else
        fail "rank $r: $(grep "rank $r" "$TEST_TMP/slow.out") $(cat "$TEST_TMP/slow.err")"
    fi
done
[ "$slow_status" = 0 ] && pass "the job ended normally once rank 2 left" || fail "the job exited $slow_status"
if grep -q "allgather .*group slow construct.*not complete within the 2000 ms its caller allowed (PMIX_TIMEOUT)" \
    "$TEST_TMP/prte.err"; then pass "the DVM ended the construct at the caller's time limit"; else
    fail "no time-limit message in the DVM's log"; fi
for node in node1 node2; do
    if grep -q "^\[$node\].*allgather .*group slow construct.*failed: not complete within" "$TEST_TMP/prte.err"; then
        pass "$node's daemon failed the collective"; else fail "$node's daemon did not fail the collective"; fi
done
if grep -q "was lost\|Segmentation fault" "$TEST_TMP/prte.err"; then
    fail "a daemon was lost: $(grep "was lost\|Segmentation fault" "$TEST_TMP/prte.err" | head -3)"
else pass "no daemon was lost"; fi
slow_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | head -1)
held=$(grep "job $slow_ns released; still held" "$TEST_TMP/prte.err")
if [ -n "$held" ] && ! echo "$held" | grep -qv ", 0 collective(s),"; then
    pass "no collective left on any daemon"; else fail "collective state after the job: $held"; fi

# The same group again after the timeout, with the late member: it calls only now, when the
# others have started their second construct. Its daemon had never started the first, yet counts
# it as the others do (it heard of its failure), so the three meet in the same collective.
timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id again --timeout 2 --late-rank 2 \
    --late-until "$TEST_TMP/join-now" --expect-error --retry >"$TEST_TMP/again.out" 2>"$TEST_TMP/again.err" &
again=$!
wait_for_lines "$TEST_TMP/again.out" '^group refused rank' 2 1200 "$again"
: >"$TEST_TMP/join-now"
wait "$again"
again_status=$?
ok=$(grep -c "^group ok rank [0-9] iter 0 ctxid [0-9]*$" "$TEST_TMP/again.out")
ids=$(sed -n 's/^group ok rank [0-9] iter 0 ctxid \([0-9]*\)$/\1/p' "$TEST_TMP/again.out" | sort -u | wc -l)
if [ "$again_status" = 0 ] && [ "$ok" = 3 ] && [ "$ids" = 1 ] && [ "$(grep -c '^group refused rank [01]: TIMEOUT$' "$TEST_TMP/again.out")" = 2 ]; then
    pass "after the timeout, the same group with the late member: all 3 constructed it, one context id"
else
    fail "again: exit $again_status, $ok of 3 constructed it ($ids context id(s))"
    sed 's/^/    /' "$TEST_TMP/again.out" "$TEST_TMP/again.err"
fi

# The DVM still serves groups, and a construct with a time limit that completes is not failed.
run next timeout 60 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id after-timeout --timeout 5
expect_status next 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/next.out")" = 3 ] && pass "a group with a time limit that everyone joins works" ||
    fail "after the timeout: $(cat "$TEST_TMP/next.out" "$TEST_TMP/next.err")"
finish
