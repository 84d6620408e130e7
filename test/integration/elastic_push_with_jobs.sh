#!/bin/sh
# Spec case (issue 27, 7: a requester-less push while jobs arrive). A resource manager pushes a
# node onto the DVM (test component ras/pushtest, read from a fifo) and the node's launch is held
# at its gate (gate1), so the push's grow is certainly in progress while jobs arrive: they park,
# then run once it completes, each with a rank on the pushed node; no completion event is raised for
# the push (it has no requester) and no job fails.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_push_dvm 2 2
gate gate1
echo "gate1" >"$TEST_TMP/push"
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 1 (grow, pushed-1)" || fail "the push started no grow"
pids=""
for j in 1 2; do
    "$PRUN" -n 3 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/job$j.out" 2>"$TEST_TMP/job$j.err" &
    pids="$pids $!"
done
wait_for_lines "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked" 2 300
n=$(grep -c "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked" "$TEST_TMP/prte.err")
[ "$n" -ge 2 ] && pass "the 2 jobs parked while the push's grow is in progress" || fail "$n job(s) parked"
open_gate gate1
j=1
for pid in $pids; do
    wait "$pid" && pass "job $j ran" || fail "job $j failed: $(cat "$TEST_TMP/job$j.err")"
    [ "$(sort "$TEST_TMP/job$j.out" | tr '\n' ' ')" = "gate1 node1 node2 " ] &&
        pass "job $j ran on the grown DVM, one rank on the pushed node" ||
        fail "job $j ran on: $(sort "$TEST_TMP/job$j.out" | tr '\n' ' ')"
    j=$((j + 1))
done
run pushed "$PALLOC" --status pushed-1
expect_line pushed out "pushed-1: ready; ras pushtest; 1 node(s) up: gate1"
grep -q "$EVENT_LINE" "$TEST_TMP/prte.err" && fail "a completion event was raised for the push: $(grep "$EVENT_LINE" "$TEST_TMP/prte.err")" ||
    pass "no completion event for the push"
stop_fg_dvm
exit $failures
