#!/bin/sh
# Conformance item 6: shrink completion is driven by the actual departure of every target, clean
# exit and crash alike, and is idempotent against a daemon reported gone more than once; the
# collective completion repairs the routing tree once per campaign (collective-shrink-completion.txt).
# On 8 local nodes with rml_radix 2 (0: 1,2  1: 3,4  3: 7,8): the single branch {3,7,8} leaves in
# one campaign with one repair on the master, and each target exits as soon as the order reaches
# it (survivors close their connections; no timer on that path - prte_elastic_leave_timeout is
# set far out to prove it). A target stopped with SIGSTOP before the shrink and killed while the
# campaign is held open by a stopped survivor (a crash mid-shrink) is a departure like any other. A vacated rank is never reused: node3 grows
# back as a new daemon with a live parent that joins collectives (a fence across every node).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
PUTGET="$PRTE_BUILDDIR/test/clients/putget"

start_elastic_dvm 8 2 --prtemca prte_elastic_leave_timeout 60000
pids="$(daemon_pid 3) $(daemon_pid 7) $(daemon_pid 8)"
repairs=$(master_repairs)
run branch "$PALLOC" --shrink initial -w node3,node7,node8
expect_status branch 0
expect_line branch out "initial: released"
[ "$(master_repairs)" -eq $((repairs + 1)) ] && pass "one repair on the master for the 3-daemon branch" ||
    fail "$(( $(master_repairs) - repairs )) repairs on the master"
wait_gone $pids && pass "the three targets exited (long before the 60 s fallback)" || fail "targets still running: $pids"
grep -q "no connection closed within prte_elastic_leave_timeout" "$TEST_TMP/prte.err" &&
    fail "a target left on the fallback timer" || pass "no target needed the fallback timer"
grep -q "lost the connection to the DVM master\|was lost\|carries on without" "$TEST_TMP/prte.err" &&
    fail "a departure was taken for a fault" || pass "no departure was reported as a loss"
run fence "$PRUN" -n 5 --map-by node "$PUTGET"
expect_status fence 0
expect_line fence out "putget ok size 5"

# A target that crashes mid-shrink: node4 is stopped before the order, and a survivor (node6) is
# stopped too, so that the campaign cannot complete its collective; node4 is killed while the
# campaign is open, then node6 resumes. The crash is the target's departure, not a loss.
victim=$(daemon_pid 4)
holder=$(daemon_pid 6)
kill -STOP "$victim" "$holder"
"$PALLOC" --shrink initial -w node4 >"$TEST_TMP/crash.out" 2>"$TEST_TMP/crash.err" &
crash_palloc=$!
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (shrink, initial): daemon(s) 4 on node4" &&
    pass "the shrink of node4 started" || fail "no shrink campaign of node4: $(grep 'campaign' "$TEST_TMP/prte.err" | tail -3)"
alive "$crash_palloc" && ! grep -q "daemon(s) 4 on node4 left" "$TEST_TMP/prte.err" &&
    pass "the campaign is open while node6 is stopped" || fail "the campaign completed before the crash"
kill -9 "$victim"
wait_gone "$victim"
kill -CONT "$holder"
wait "$crash_palloc"
status_crash=$?
expect_status crash 0
expect_line crash out "released"
run after_crash "$PRUN" -n 4 --map-by node "$PUTGET"
expect_status after_crash 0
alive "$DVM_PID" && pass "the DVM is unaffected by the late crash of a departed daemon" || fail "the DVM ended"
grep -q "daemon 4 .*lost\|without node node4" "$TEST_TMP/prte.err" && fail "the crash of departed daemon 4 was acted on" ||
    pass "the crash of a departed daemon is ignored"

# Re-grow into the vacated part of the tree: a new rank, a live parent, and collectives work.
run regrow "$PALLOC" -w node3,node7
expect_status regrow 0
expect_line regrow out "ready; ras hosts; 2 node(s) up: node3, node7"
grep -q "plm/ssh: daemon 9 on node3" "$TEST_TMP/prte.err" && pass "node3 came back as a new rank (9), vacated ranks unused" ||
    fail "node3's new daemon: $(grep 'plm/ssh: daemon [0-9]* on node3' "$TEST_TMP/prte.err")"
run all "$PRUN" -n 7 --map-by node "$PUTGET"
expect_status all 0
expect_line all out "putget ok size 7"
# One rank per node of the six the DVM now has: each exactly once (a node the DVM held twice, say a
# re-grown node3 beside its departed daemon's record, would show twice or push one out).
run where "$PRUN" -n 6 --map-by node sh -c "$NODE_OF_RANK"
expect_status where 0
[ "$(sort "$TEST_TMP/where.out" | tr '\n' ' ')" = "node1 node2 node3 node5 node6 node7 " ] &&
    pass "jobs span the survivors and the re-grown nodes, each node once" ||
    fail "ranks ran on: $(sort "$TEST_TMP/where.out" | tr '\n' ' ')"
stop_fg_dvm
exit $failures
