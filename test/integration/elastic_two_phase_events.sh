#!/bin/sh
# Conformance item 8: a dynamic allocation is answered in two phases - status and PMIX_ALLOC_ID
# (PMIX_ALLOC_REQ_ID echoed) at once, then exactly one terminal event to the requester, on
# whatever node it runs, where <pmix.h> defines the codes (this build:
# $(prte_info) says). A rejection, a request that changes nothing and a requester-less push get
# none. In both builds PMIX_QUERY_ALLOC_STATUS gives pending / ready / failed / released.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_push_dvm 2 2

# A requester on node2 (a relayed request): grow, then release.
run grow "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" grow node3 my-req
expect_status grow 0
expect_line grow out "phase1 SUCCESS alloc alloc-1 req my-req"
expect_line grow out "outcome alloc-1: ready; ras hosts; 1 node(s) up: node3"
run release "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" release alloc-1 node3
expect_status release 0
expect_line release out "phase1 SUCCESS alloc alloc-1"
expect_line release out "outcome alloc-1: released"
# A rejection and a request that changes nothing.
run reject "$PRUN" -n 1 --host node1 "$ALLOC_CLIENT" release alloc-9 node9
expect_line reject out "phase1 NOT-FOUND"
run noop "$PRUN" -n 1 --host node1 "$ALLOC_CLIENT" grow node2 same
expect_line noop out "phase1 SUCCESS"
expect_line noop out "outcome alloc-2: ready"
# Every outcome the DVM raised an event for (or, in a build without the codes, would have): the
# grow's and the release's, both successes, both on node2, the requester's node; none for the
# rejection or the no-op, and no failure event.
events=$(grep "$EVENT_LINE" "$TEST_TMP/prte.err")
if events_build; then expected='PMIX_DVM_IS_READY to'; else expected='complete: no completion event'; fi
[ "$(echo "$events" | grep -c "^\[node2\].* allocation alloc-1:\? $expected")" -eq 2 ] && [ "$(echo "$events" | wc -l)" -eq 2 ] &&
    pass "exactly two events in all: the grow's and the release's, successes, raised on node2" ||
    fail "events raised: $events"
if events_build; then
    expect_line grow out "events ready 1 failed 0 alloc alloc-1 req my-req"
    expect_line release out "events ready 1 failed 0 alloc alloc-1 req none"
    expect_line reject out "events ready 0 failed 0"
    expect_line noop out "events ready 0 failed 0"
else
    # The client, built against the same <pmix.h>, cannot even subscribe: the master says why it
    # raises nothing, for the grow and the release, and the status query (above) gave the outcome.
    [ "$(grep -c "allocation alloc-1 \(complete\|released\)\?[a-z ]*: no completion event (this PMIx defines neither PMIX_DVM_IS_READY nor" "$TEST_TMP/prte.err")" -eq 2 ] &&
        pass "no event in a build whose PMIx lacks the codes, the master says why; the status query gave the outcome" ||
        fail "the master does not say why it raises no event: $(grep 'no completion event' "$TEST_TMP/prte.err")"
fi

# A requester-less push: the grow happens, no event is raised.
before=$(grep -c 'PMIX_DVM_IS_READY to\|PMIX_ERR_DVM_MOD to\|no completion event' "$TEST_TMP/prte.err")
echo "node5" >"$TEST_TMP/push"
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, pushed-1) complete" && pass "the pushed node joined the DVM" ||
    fail "the push did not grow the DVM"
run pushed "$PALLOC" --status pushed-1
expect_line pushed out "pushed-1: ready; ras pushtest; 1 node(s) up: node5"
[ "$(grep -c 'PMIX_DVM_IS_READY to\|PMIX_ERR_DVM_MOD to\|no completion event' "$TEST_TMP/prte.err")" -eq "$before" ] &&
    pass "no completion event for a push" || fail "an event was raised for the push"
grep -q "requester no requester (a push)" "$TEST_TMP/prte.err" && pass "the push's campaign has no requester" ||
    fail "the push's campaign named a requester"
stop_fg_dvm
exit $failures
