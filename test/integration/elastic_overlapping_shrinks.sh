#!/bin/sh
# Spec case (issue 27, 7: two overlapping shrinks). On 6 local nodes with radix 2
# (0: 1,2  1: 3,4  2: 5,6), a surviving leaf, node5, is stopped so that a shrink of node4 cannot
# complete; once node6 has that order it is stopped too, and a second shrink, of node3, starts
# while the first is open; a job arrives while both are. Node5 resumes: the first shrink completes
# while node6 still holds the second open, and the job stays parked (the launch fence counts every
# open campaign, not just "a shrink in progress"). Node6 resumes: each campaign has completed
# exactly once with one repair each on the master, both targets are gone, the job parked
# meanwhile runs on the survivors only (node1, node2, node5, node6), and a collective across them
# works.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
PUTGET="$PRTE_BUILDDIR/test/clients/putget"

start_elastic_dvm 6 2
repairs=$(master_repairs)
held=$(daemon_pid 5)
second_holder=$(daemon_pid 6)
targets="$(daemon_pid 3) $(daemon_pid 4)"
kill -STOP "$held"
node6_repairs=$(grep -c "^\[node6\] .*rml: rml: repair" "$TEST_TMP/prte.err")
"$PALLOC" --shrink initial -w node4 >"$TEST_TMP/first.out" 2>"$TEST_TMP/first.err" &
first=$!
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 1 (shrink" || fail "the first shrink did not start"
# node6 has the first order once it has repaired its tree from it; then it holds the second.
wait_for_lines "$TEST_TMP/prte.err" "^\[node6\] .*rml: rml: repair" $((node6_repairs + 1)) 100
[ "$(grep -c "^\[node6\] .*rml: rml: repair" "$TEST_TMP/prte.err")" -gt "$node6_repairs" ] ||
    fail "node6 did not act on the first shrink's order"
kill -STOP "$second_holder"
"$PALLOC" --shrink initial -w node3 >"$TEST_TMP/second.out" 2>"$TEST_TMP/second.err" &
second=$!
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 2 (shrink" || fail "the second shrink did not start"
"$PRUN" -n 4 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/job.out" 2>"$TEST_TMP/job.err" &
job=$!
wait_for_line "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS" && pass "the job parked behind both shrinks" ||
    fail "the job did not park"
alive "$first" && alive "$second" && pass "both shrinks are held open by the stopped survivors" ||
    fail "a shrink completed with node5 stopped"
kill -CONT "$held"

wait "$first" && pass "the first shrink completed" || fail "the first shrink: $(cat "$TEST_TMP/first.out" "$TEST_TMP/first.err")"
alive "$second" && pass "the second shrink is still held open by node6" ||
    fail "the second shrink ended with node6 stopped: $(cat "$TEST_TMP/second.out" "$TEST_TMP/second.err")"
grep -q "released from the map boundary" "$TEST_TMP/prte.err" &&
    fail "the parked job was released with the second shrink still open" ||
    pass "the parked job stays parked while the second shrink is open"
kill -CONT "$second_holder"
wait "$second" && pass "the second shrink completed" || fail "the second shrink: $(cat "$TEST_TMP/second.out" "$TEST_TMP/second.err")"
# The line the check above looked for in vain is there now: it could have been seen.
wait_for_line "$TEST_TMP/prte.err" "released from the map boundary" &&
    pass "the parked job is released from the map boundary once both shrinks are done" ||
    fail "the parked job was never released from the map boundary: $(grep 'released from' "$TEST_TMP/prte.err")"
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
