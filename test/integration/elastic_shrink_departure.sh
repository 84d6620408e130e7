#!/bin/sh
# Conformance item 6: shrink completion is driven by the actual departure of every target, clean
# exit and crash alike, and is idempotent against a daemon reported gone more than once; the
# collective completion repairs the routing tree once per campaign (collective-shrink-completion.txt).
# On 8 local nodes with rml_radix 2 (0: 1,2  1: 3,4  3: 7,8): the single branch {3,7,8} leaves in
# one campaign with one repair on the master, and each target exits as soon as the order reaches
# it (survivors close their connections; no timer on that path - prte_elastic_leave_timeout is
# set far out to prove it). A target stopped with SIGSTOP before the shrink and killed after it
# completes (a crash mid-shrink) changes nothing. A vacated rank is never reused: node3 grows
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

# A target that crashes mid-shrink: stopped before the order, killed after the campaign completed.
victim=$(daemon_pid 4)
kill -STOP "$victim"
run crash "$PALLOC" --shrink initial -w node4
expect_status crash 0
expect_line crash out "released"
kill -9 "$victim"
wait_gone "$victim"
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
run where "$PRUN" -n 7 --map-by node sh -c "$NODE_OF_RANK"
[ "$(sort "$TEST_TMP/where.out" | tr '\n' ' ')" = "node1 node2 node3 node5 node6 node7 " ] ||
[ "$(sort "$TEST_TMP/where.out" | uniq | tr '\n' ' ')" = "node1 node2 node3 node5 node6 node7 " ] &&
    pass "jobs span the survivors and the re-grown nodes, no node twice" ||
    fail "ranks ran on: $(sort "$TEST_TMP/where.out" | tr '\n' ' ')"
stop_fg_dvm
exit $failures
