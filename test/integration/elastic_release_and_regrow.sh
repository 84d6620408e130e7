#!/bin/sh
# Two behaviours of a shrink no other test checks (issue 46 item 10): a job running on a node that
# is released ends at once, and its tool (prun) is told why, naming the node and the allocation
# (bench/chaos reads that line; docs/elastic.md: "the release says the node is no longer needed");
# a job elsewhere runs on. And a released node grown back gets exactly one daemon: one process
# named for it, the node listed once, a job there runs once.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 3 2

# daemons_named NODE: how many of this DVM's daemons take NODE as their node name (local-agent
# gives each its node in PRTE_MCA_prte_node_name).
daemons_named() {
    for p in $(dvm_daemons); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "PRTE_MCA_prte_node_name=$1" && echo "$p"
    done | wc -l
}

# A job on node3, which is released, and a bystander on node1.
"$PRUN" -n 1 --host node3 sh -c "$UNTIL_STOPPED" onnode3 >"$TEST_TMP/onnode3.out" 2>"$TEST_TMP/onnode3.err" &
victim=$!
"$PRUN" -n 1 --host node1 sh -c "$UNTIL_STOPPED" bystander >"$TEST_TMP/bystander.out" 2>"$TEST_TMP/bystander.err" &
bystander=$!
wait_for_line "$TEST_TMP/onnode3.out" "onnode3 running" || fail "the job on node3 never started"
wait_for_line "$TEST_TMP/bystander.out" "bystander running" || fail "the bystander never started"
run release "$PALLOC" --shrink initial -w node3
expect_status release 0
expect_line release out "released"
wait "$victim"
status=$?
[ "$status" -ne 0 ] && pass "the job on the released node ended ($status)" || fail "the job on node3 exited 0"
grep -q "node node3 is leaving the DVM (released from allocation initial): job [^ ]* had 1 process(es) there" \
    "$TEST_TMP/onnode3.err" && pass "its prun was told why, naming the node and the allocation" ||
    fail "prun's account of the end: $(cat "$TEST_TMP/onnode3.err")"
alive "$bystander" && pass "the job on node1 runs on" || fail "the bystander ended: $(cat "$TEST_TMP/bystander.err")"
stop_running bystander
wait "$bystander" && pass "the bystander ended well" || fail "the bystander failed: $(cat "$TEST_TMP/bystander.err")"
t=0; while [ "$(daemons_named node3)" -ne 0 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(daemons_named node3)" -eq 0 ] && pass "node3's daemon left" || fail "node3 still has $(daemons_named node3) daemon(s)"

# node3 grown back: exactly one daemon, the node listed once, a job there runs once.
run regrow "$PALLOC" -w node3
expect_status regrow 0
expect_line regrow out "1 node(s) up: node3"
[ "$(daemons_named node3)" -eq 1 ] && pass "the re-grown node3 has exactly one daemon" ||
    fail "node3 has $(daemons_named node3) daemon(s)"
run alloc "$PRUN" --display allocation -n 1 --host node3 sh -c "$NODE_OF_RANK"
expect_status alloc 0
[ "$(grep -c '^    node3: slots=' "$TEST_TMP/alloc.out")" -eq 1 ] && pass "the allocation lists node3 once" ||
    { fail "the allocation lists node3 $(grep -c '^    node3: slots=' "$TEST_TMP/alloc.out") time(s)"; sed 's/^/    /' "$TEST_TMP/alloc.out"; }
[ "$(grep -cx node3 "$TEST_TMP/alloc.out")" -eq 1 ] && pass "a job on node3 ran there once" ||
    fail "the job on node3 printed: $(cat "$TEST_TMP/alloc.out")"
stop_fg_dvm
exit $failures
