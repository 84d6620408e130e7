#!/bin/sh
# Conformance item 3: no launch data goes to a departing daemon; a job already mapped onto a
# departing node is remapped onto the survivors before it launches. prte_test_hold_launch holds
# the job at LAUNCH_APPS (mapped, not launched) until the shrink starts - a fault-injection hook,
# not a sleep - so it is certainly in flight across the shrink; once the hook lets it go, the
# shrink's own launch fence must park it (checked), and releasing it remaps it. A job mapped only onto survivors
# launches on its mapping unchanged.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 3 2 --prtemca prte_test_hold_launch 1
"$PRUN" -n 3 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/moved.out" 2>"$TEST_TMP/moved.err" &
moved=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary" ||
    fail "job @1 was not held at LAUNCH_APPS"
"$PRUN" -n 1 --host node1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/kept.out" 2>"$TEST_TMP/kept.err" &
kept=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary" &&
    wait_for_line "$TEST_TMP/prte.err" "@2 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary" &&
    pass "both jobs are mapped and held at LAUNCH_APPS" || fail "the jobs were not held at LAUNCH_APPS"
grep -q "job .*@1: .* process(es) here" "$TEST_TMP/prte.err" && fail "launch data left before the shrink" ||
    pass "no launch data was sent yet"

run shrink "$PALLOC" --shrink initial -w node2
expect_status shrink 0
# The hook let both jobs go when the shrink started: the production hold (the shrink's launch
# fence) must then have parked each at LAUNCH_APPS, not the hook.
for j in 1 2; do
    grep -q "@$j -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the launch boundary: launch fence [1-9]" "$TEST_TMP/prte.err" &&
        pass "job @$j was parked by the shrink's launch fence" ||
        fail "job @$j was not parked by the shrink's fence: $(grep "@$j -> " "$TEST_TMP/prte.err" | tail -3)"
done
wait "$moved"
[ $? -eq 0 ] && pass "the job mapped onto node2 ran" || fail "the job mapped onto node2 failed: $(cat "$TEST_TMP/moved.err")"
grep -q node2 "$TEST_TMP/moved.out" && fail "a process ran on the departed node2" ||
    pass "it was remapped onto the survivors: $(sort "$TEST_TMP/moved.out" | tr '\n' ' ')"
grep -q "@1: released from the launch boundary; remapped onto the surviving nodes" "$TEST_TMP/prte.err" &&
    pass "the remap is logged" || fail "no remap logged for job @1"
wait "$kept"
[ $? -eq 0 ] && [ "$(cat "$TEST_TMP/kept.out")" = node1 ] && pass "the job on node1 alone launched on its mapping" ||
    fail "job on node1: $(cat "$TEST_TMP/kept.out" "$TEST_TMP/kept.err")"
grep -q "@2: released from the launch boundary; launching on its mapping" "$TEST_TMP/prte.err" &&
    pass "...without a remap" || fail "job @2 was not released on its mapping"
grep -q "node2.*job .*@1: 1 of 3 process(es) here" "$TEST_TMP/prte.err" && fail "node2 got launch data for job @1" ||
    pass "node2's daemon never got launch data"
stop_fg_dvm
exit $failures
