#!/bin/sh
# Autoscaling (prte_autoscale; docs/elastic.md, "Autoscaling"): a borrowed node goes back to its
# lender through a shrink once it has run no process for prte_autoscale_idle_timeout, never while
# a job runs there however long; prte_autoscale_min_nodes stay; a node a user grew the DVM by
# (palloc) and the DVM's own nodes are never given back; the pool lends a returned node again.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

start_autoscale_dvm 'spare1 slots=2\nspare2 slots=2\n' --prtemca prte_autoscale_idle_timeout 1
run user "$PALLOC" -w node5
expect_status user 0

# A job on the borrowed node for three idle timeouts (6 processes: node1's 2, the user's node5's
# 2 and spare1's): the node stays while it runs.
"$PRUN" -n 6 sh -c "$UNTIL_STOPPED" long >"$TEST_TMP/long.out" 2>&1 &
long=$!
wait_for_lines "$TEST_TMP/long.out" "long running" 6 100
grep -q "autoscale: growing by 1 node(s)" "$TEST_TMP/prte.err" && pass "the DVM grew for the job" || fail "no grow"
sleep 3
grep -q "giving it back" "$TEST_TMP/prte.err" && fail "a node was given back while its job ran: $(grep 'giving it back' "$TEST_TMP/prte.err")" ||
    pass "spare1 stays while its job runs"
stop_running long
wait "$long" && pass "the long job ended well" || fail "the long job failed: $(cat "$TEST_TMP/long.out")"
wait_for_line "$TEST_TMP/prte.err" "autoscale: node spare1 is back with its lender" && pass "idle spare1 went back" ||
    fail "spare1 was not given back: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
grep -q "autoscale: node spare1 idle for 1\.[0-9] s (prte_autoscale_idle_timeout 1 s): giving it back" "$TEST_TMP/prte.err" &&
    pass "the log says why" || fail "the give-back line: $(grep 'giving it back' "$TEST_TMP/prte.err")"
run table "$PSTAT"
expect_no_line table out "spare1"
expect_line table out "node5"
expect_line table out "node1"
sleep 1.5
grep -q "node node5 idle\|node node1 idle\|node5 is back\|node1 is back" "$TEST_TMP/prte.err" &&
    fail "a node the autoscaler did not borrow was given back" || pass "node1 and the user's node5 stay"

# Lent again: the next job too large borrows spare1 once more, and it runs there.
run again "$PRUN" -n 6 sh -c "$NODE_OF_RANK"
expect_status again 0
grep -q "spare1" "$TEST_TMP/again.out" && pass "spare1 lent again" || fail "again ran on: $(cat "$TEST_TMP/again.out")"
stop_fg_dvm

# prte_autoscale_min_nodes 1: of two idle borrowed nodes, one goes back, one is kept warm.
start_autoscale_dvm 'spare1 slots=2\nspare2 slots=2\n' --prtemca prte_autoscale_idle_timeout 1 \
    --prtemca prte_autoscale_min_nodes 1
run six "$PRUN" -n 6 hostname
expect_status six 0
wait_for_line "$TEST_TMP/prte.err" "is back with its lender" || fail "no node went back"
sleep 2
[ "$(grep -c 'is back with its lender' "$TEST_TMP/prte.err")" = 1 ] && pass "one node kept warm" ||
    fail "given back: $(grep 'is back with its lender' "$TEST_TMP/prte.err")"
stop_fg_dvm
finish
