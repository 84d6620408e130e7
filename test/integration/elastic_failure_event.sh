#!/bin/sh
# Spec case (issue 27, 5; elastic-dvm-spec.txt "Failure event" and conformance item 8): the failure
# event's contents and its one recipient. A requester on node2 asks for a grow onto a host that
# cannot be reached: phase one succeeds, then exactly one PMIX_ERR_DVM_MOD reaches it, carrying the
# allocation id, its request id, the cause (a pmix_status_t) and the reason in words. A refusal
# and a request that changes nothing raise no event. A bystander on node1, registered for the same
# events before the failure, receives none of it: only its own grow's success, afterwards (its own
# event travels the same path, so a misdirected one would have arrived first). Without the codes
# in <pmix.h> (the first CI build) the outcomes are checked through PMIX_QUERY_ALLOC_STATUS only.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2 --prtemca pmix_server_verbose 2
mkfifo "$TEST_TMP/go"
"$PRUN" -n 1 --host node1 "$ALLOC_CLIENT" watch "$TEST_TMP/go" node3 own >"$TEST_TMP/bystander.out" \
    2>"$TEST_TMP/bystander.err" &
bystander=$!
wait_for_line "$TEST_TMP/bystander.out" "^watching" || fail "the bystander did not start: $(cat "$TEST_TMP/bystander.err")"

run failed "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" grow unreachable7 rq5
expect_status failed 0
alloc=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req rq5$/\1/p' "$TEST_TMP/failed.out")
[ -n "$alloc" ] && pass "phase one: success, an allocation id, rq5 echoed" || fail "phase one: $(cat "$TEST_TMP/failed.out")"
expect_line failed out "outcome $alloc: failed: "
run reject "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" release alloc-9 node9
expect_line reject out "phase1 NOT-FOUND"
run noop "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" grow node1 same
expect_line noop out "phase1 SUCCESS"

echo go >"$TEST_TMP/go"
wait "$bystander" && pass "the bystander's own grow ran" || fail "the bystander failed: $(cat "$TEST_TMP/bystander.err")"
own=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req own$/\1/p' "$TEST_TMP/bystander.out")
grep -q "^outcome $own: ready" "$TEST_TMP/bystander.out" && pass "the bystander's grow of node3 is ready" ||
    fail "the bystander's grow: $(cat "$TEST_TMP/bystander.out")"

if events_build; then
    # The cause of an unreachable host's failure: its daemon could not be started there
    # (PMIX_ERR_PROC_FAILED_TO_START, as PMIx_Error_string spells it), and the reason in words.
    expect_line failed out "events ready 0 failed 1 alloc $alloc req rq5 cause PROC-FAILED-TO-START"
    expect_line failed out "event message the DVM could not grow (campaign 1, allocation $alloc, node(s) unreachable7)"
    expect_line reject out "events ready 0 failed 0 alloc none req none cause none"
    expect_line noop out "events ready 0 failed 0 alloc none req none cause none"
    expect_line bystander out "events ready 1 failed 0 alloc $own req own cause none"
    n=$(grep -c "allocation $alloc: PMIX_ERR_DVM_MOD to" "$TEST_TMP/prte.err")
    [ "$n" = 1 ] && pass "the DVM raised the failure event once" || fail "the DVM raised the failure event $n times"
else
    grep -q "^events " "$TEST_TMP/failed.out" "$TEST_TMP/bystander.out" && fail "an event in a build without the codes" ||
        pass "no event in a build whose PMIx lacks the codes"
    grep -q "allocation $alloc failed: no completion event" "$TEST_TMP/prte.err" &&
        pass "the DVM says it would have raised the failure event" || fail "no line for the failure's event"
fi
stop_fg_dvm
exit $failures
