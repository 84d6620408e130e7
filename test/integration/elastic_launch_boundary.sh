#!/bin/sh
# Spec case (issue 27, 7): the launch boundary with campaigns of both kinds (elastic-dvm-spec.txt
# 8.3.1.4-5). prte_test_hold_launch holds each job once at LAUNCH_APPS (mapped, not launched)
# until the next campaign starts - a fault-injection hook, not a sleep.
# 1. A grow never holds a job already past mapping: a job released at the launch boundary while
#    only a grow (held open by its gate) is in progress launches and ends before the grow does.
# 2. A grow and a shrink together: a job mapped onto the leaving node3 parks at the launch boundary
#    for the shrink (held open by a stopped survivor); the shrink's completion does not release it
#    while the grow is still open (parked jobs wait for every campaign); once the grow completes it
#    is released once, remapped onto the survivors, and runs nothing on node3.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

HELD="PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary"
PARKED_AT_LAUNCH="PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the launch boundary"
# 4 local nodes, radix 2: 0: 1,2  1: 3,4; node2 is a survivor hanging off the master.
start_elastic_dvm 4 2 --prtemca prte_test_hold_launch 1

# 1. Only a grow in progress.
"$PRUN" -n 3 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/a.out" 2>"$TEST_TMP/a.err" &
a=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> $HELD" || fail "job @1 was not held at LAUNCH_APPS"
gate gate1
run g1 "$PALLOC" --do-not-wait -w gate1
expect_status g1 0
# The grow's start releases @1 from the hook; the job must now run to its end with the grow open.
if wait_gone "$a"; then
    wait "$a" && pass "the mapped job ran while the grow was in progress" || fail "job @1 failed: $(cat "$TEST_TMP/a.err")"
else
    fail "the mapped job was held by a grow (still waiting with gate1 closed)"
fi
grep -q "@1 -> $PARKED_AT_LAUNCH" "$TEST_TMP/prte.err" && fail "job @1 was parked at the launch boundary by a grow" ||
    pass "no job was parked at the launch boundary for a grow"
grep -q "plm: campaign 1 (grow.*complete" "$TEST_TMP/prte.err" && fail "the grow completed before the check (gate1 open?)" ||
    pass "...and the grow was still in progress then"
[ "$(sort "$TEST_TMP/a.out" | tr '\n' ' ')" = "node1 node2 node3 " ] && pass "job @1 ran on its mapping" ||
    fail "job @1 ran on: $(tr '\n' ' ' <"$TEST_TMP/a.out")"
open_gate gate1
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 1 (grow.*complete" && pass "the grow onto gate1 completed" ||
    fail "the grow onto gate1 did not complete"

# 2. A shrink held open, then a grow beside it, with a job at the launch boundary.
"$PRUN" -n 5 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/b.out" 2>"$TEST_TMP/b.err" &
b=$!
wait_for_line "$TEST_TMP/prte.err" "@2 -> $HELD" || fail "job @2 was not held at LAUNCH_APPS"
survivor=$(daemon_pid 2)
kill -STOP "$survivor"
"$PALLOC" --shrink initial -w node3 >"$TEST_TMP/shrink.out" 2>"$TEST_TMP/shrink.err" &
shrink=$!
wait_for_line "$TEST_TMP/prte.err" "@2 -> $PARKED_AT_LAUNCH" && pass "job @2 parked at the launch boundary for the shrink" ||
    fail "job @2 was not parked at the launch boundary: $(grep '@2 ->' "$TEST_TMP/prte.err" | tail -3)"
gate gate2
run g2 "$PALLOC" --do-not-wait -w gate2
expect_status g2 0
wait_for_line "$TEST_TMP/prte.err" "plm: campaign 3 (grow" || fail "the grow onto gate2 did not start"
kill -CONT "$survivor"
wait "$shrink" && pass "the shrink of node3 completed once node2 resumed" || fail "the shrink failed: $(cat "$TEST_TMP/shrink.err")"
alive "$b" && pass "the shrink's completion did not release job @2 with the grow still open" ||
    fail "job @2 ended before the grow completed: $(cat "$TEST_TMP/b.out" "$TEST_TMP/b.err")"
grep -q "@2: released from the launch boundary" "$TEST_TMP/prte.err" && fail "job @2 was released with the grow open" ||
    pass "...and no release of it was logged"
open_gate gate2
wait "$b" && pass "job @2 ran once both campaigns completed" || fail "job @2 failed: $(cat "$TEST_TMP/b.err")"
[ "$(grep -c "@2: released from the launch boundary; remapped onto the surviving nodes" "$TEST_TMP/prte.err")" -eq 1 ] &&
    pass "job @2 was released once, remapped onto the survivors" ||
    fail "job @2's releases: $(grep '@2: released' "$TEST_TMP/prte.err")"
grep -q node3 "$TEST_TMP/b.out" && fail "job @2 ran a rank on the departed node3" ||
    pass "job @2 ran nothing on node3 ($(sort "$TEST_TMP/b.out" | tr '\n' ' '))"
[ "$(wc -l <"$TEST_TMP/b.out")" -eq 5 ] || fail "job @2 ran $(wc -l <"$TEST_TMP/b.out") ranks, not 5"
[ "$(grep -c "plm: campaign [0-9]* (.*) complete" "$TEST_TMP/prte.err")" -eq 3 ] &&
    pass "three campaigns, one completion each" || fail "completions: $(grep 'plm: campaign [0-9]* (.*) complete' "$TEST_TMP/prte.err")"
stop_fg_dvm
exit $failures
