#!/bin/sh
# Spec cases (issue 27, 7): a shrink's two outcomes, as the requester sees them.
# 1. Resources released before the completion event (shrink-campaign-fence-tracking.txt, "the
#    RAS release cycle runs ahead of the completion event"): nodes lent by the ssh pool go back to
#    it before the DVM logs the shrink's outcome, so the moment palloc hears of it, the same hosts
#    can be borrowed again.
# 2. A shrink that cannot be carried out (elastic-dvm-spec.txt, "Failure event"): its order cannot
#    be broadcast (prte_test_fail_shrink_order, a fault-injection hook). Phase one succeeded; then
#    exactly one failure outcome with the cause, and the DVM is as it was: the node stays, with its
#    daemon, usable, and the launch fence is down (jobs run).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

# 1.
printf 'spare1 slots=2\nspare2 slots=2\n' >"$TEST_TMP/pool"
start_elastic_dvm 1 2 --prtemca ras_ssh_pool "$TEST_TMP/pool" --prtemca pmix_server_verbose 2
run lend "$PALLOC" -N 2
expect_status lend 0
expect_line lend out "2 node(s) up: spare1, spare2"
alloc=$(sed -n 's/^\(alloc-[0-9]*\):.*/\1/p' "$TEST_TMP/lend.out" | head -1)
[ -n "$alloc" ] || fail "no allocation id in: $(cat "$TEST_TMP/lend.out")"
run back "$PALLOC" --shrink "$alloc" -w spare1,spare2
expect_status back 0
expect_line back out "released"
returned=$(grep -n "ras: ssh: 2 host(s) back in the pool: spare1, spare2" "$TEST_TMP/prte.err" | head -1 | cut -d: -f1)
outcome=$(grep -n "$EVENT_LINE" "$TEST_TMP/prte.err" | tail -1 | cut -d: -f1)
if [ -n "$returned" ] && [ -n "$outcome" ] && [ "$returned" -lt "$outcome" ]; then
    pass "the pool had spare1 and spare2 back (line $returned) before the shrink's outcome (line $outcome)"
else
    fail "release and outcome out of order: pool line '$returned', outcome line '$outcome'"
fi
run again "$PALLOC" -N 2
expect_status again 0
expect_line again out "2 node(s) up: spare1, spare2"
stop_fg_dvm

# 2.
start_elastic_dvm 2 2 --prtemca prte_test_fail_shrink_order 1 --prtemca pmix_server_verbose 2
node2=$(daemon_pid 2)
run failed "$PRUN" -n 1 --host node1 "$ALLOC_CLIENT" release initial node2
expect_status failed 0
alloc=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\).*/\1/p' "$TEST_TMP/failed.out")
[ -n "$alloc" ] && pass "phase one: the shrink was accepted" || fail "phase one: $(cat "$TEST_TMP/failed.out")"
expect_line failed out "outcome $alloc: failed: the shrink order could not be sent (prte_test_fail_shrink_order)"
[ "$(grep -c "$EVENT_LINE" "$TEST_TMP/prte.err")" -eq 1 ] && pass "exactly one outcome for the failed shrink" ||
    fail "outcomes: $(grep "$EVENT_LINE" "$TEST_TMP/prte.err")"
grep -q "plm: campaign 1 (shrink, $alloc) failed: the shrink order could not be sent" "$TEST_TMP/prte.err" &&
    pass "the campaign's failure is logged with its cause" || fail "no failure line for campaign 1"
if events_build; then
    expect_line failed out "events ready 0 failed 1 alloc $alloc req none cause UNREACHABLE"
fi
alive "$node2" && pass "node2's daemon is still there" || fail "node2's daemon left on a failed shrink"
run used "$PRUN" -n 2 --map-by node sh -c "$NODE_OF_RANK"
expect_status used 0
[ "$(sort "$TEST_TMP/used.out" | tr '\n' ' ')" = "node1 node2 " ] && pass "node2 is still in the DVM and runs jobs" ||
    fail "ranks ran on: $(tr '\n' ' ' <"$TEST_TMP/used.out") $(cat "$TEST_TMP/used.err")"
run status "$PALLOC" --status "$alloc"
expect_line status out "$alloc: failed"
stop_fg_dvm
exit $failures
