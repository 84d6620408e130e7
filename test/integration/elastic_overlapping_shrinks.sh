#!/bin/sh
# Spec case (issue 27, 7: two overlapping shrinks). On 6 local nodes with radix 2
# (0: 1,2  1: 3,4  2: 5,6), a surviving leaf, node5, is stopped so that a shrink of node4 cannot
# complete; a second shrink, of node3, starts while the first is open, and a job arrives while both
# are. Once node5 resumes: each campaign completes exactly once with one repair each on the master,
# both targets are gone, the job parked meanwhile runs on the survivors only (node1, node2, node5,
# node6), and a collective across them works.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
PUTGET="$PRTE_BUILDDIR/test/clients/putget"

start_elastic_dvm 6 2
repairs=$(master_repairs)
held=$(daemon_pid 5)
targets="$(daemon_pid 3) $(daemon_pid 4)"
kill -STOP "$held"
"$PALLOC" --shrink initial -w node4 >"$TEST_TMP/first.out" 2>"$TEST_TMP/first.err" &
first=$!
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 1 (shrink" || fail "the first shrink did not start"
"$PALLOC" --shrink initial -w node3 >"$TEST_TMP/second.out" 2>"$TEST_TMP/second.err" &
second=$!
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 2 (shrink" || fail "the second shrink did not start"
"$PRUN" -n 4 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/job.out" 2>"$TEST_TMP/job.err" &
job=$!
wait_for_line "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS" && pass "the job parked behind both shrinks" ||
    fail "the job did not park"
alive "$first" && alive "$second" && pass "both shrinks are held open by the stopped survivor" ||
    fail "a shrink completed with node5 stopped"
kill -CONT "$held"

wait "$first" && pass "the first shrink completed" || fail "the first shrink: $(cat "$TEST_TMP/first.out" "$TEST_TMP/first.err")"
wait "$second" && pass "the second shrink completed" || fail "the second shrink: $(cat "$TEST_TMP/second.out" "$TEST_TMP/second.err")"
wait_gone $targets && pass "node3's and node4's daemons are gone" || fail "a target is still running"
for c in 1 2; do
    n=$(grep -c "plm: campaign $c (shrink, [^)]*) complete in" "$TEST_TMP/prte.err")
    [ "$n" = 1 ] && pass "campaign $c completed once" || fail "campaign $c completed $n times"
done
[ "$(master_repairs)" -eq $((repairs + 2)) ] && pass "one repair on the master for each shrink" ||
    fail "$(( $(master_repairs) - repairs )) repairs on the master for two shrinks"
wait "$job" && pass "the parked job ran" || fail "the parked job failed: $(cat "$TEST_TMP/job.err")"
[ "$(sort "$TEST_TMP/job.out" | tr '\n' ' ')" = "node1 node2 node5 node6 " ] &&
    pass "it ran on the survivors only" || fail "its ranks ran on: $(sort "$TEST_TMP/job.out" | tr '\n' ' ')"
run fence "$PRUN" -n 4 --map-by node "$PUTGET"
expect_status fence 0
expect_line fence out "putget ok size 4"
stop_fg_dvm
exit $failures
