#!/bin/sh
# When jobs park, and when they never do (issue 46 item 10). An elastic DVM that never changes
# size never parks a job: jobs one after another and side by side all run, and no job ever enters
# PRTE_JOB_STATE_WAITING_FOR_DAEMONS. A job's own `prun --add-host` grow raises the launch fence
# like any other: jobs arriving while it is in progress (held open by a gated node) park, and all
# run once it completes.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2

# No size change: 10 jobs in a row, then 10 at once.
i=0
while [ $i -lt 10 ]; do
    run "row$i" "$PRUN" -n 2 --map-by node sh -c "$NODE_OF_RANK"
    expect_status "row$i" 0
    i=$((i + 1))
done
pids=""
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$PRUN" -n 1 --map-by :OVERSUBSCRIBE sh -c "$NODE_OF_RANK" >"$TEST_TMP/side$i.out" 2>"$TEST_TMP/side$i.err" &
    pids="$pids $!"
done
good=0
for p in $pids; do wait "$p" && good=$((good + 1)); done
[ $good -eq 10 ] && pass "10 jobs side by side ran" ||
    { fail "$good of 10 jobs side by side ran"; cat "$TEST_TMP"/side*.err | sort | uniq -c | head -3; }
# The state log is on (each job's RUNNING is there), and no job ever parked.
[ "$(grep -c -- "-> PRTE_JOB_STATE_RUNNING" "$TEST_TMP/prte.err")" -ge 20 ] && pass "the state log shows the 20 jobs running" ||
    fail "the state log shows $(grep -c -- "-> PRTE_JOB_STATE_RUNNING" "$TEST_TMP/prte.err") running job(s)"
grep -q "PRTE_JOB_STATE_WAITING_FOR_DAEMONS" "$TEST_TMP/prte.err" &&
    fail "a job parked in a DVM that never changed size: $(grep WAITING_FOR_DAEMONS "$TEST_TMP/prte.err" | head -3)" ||
    pass "no job parked while the DVM did not change size"

# prun --add-host gate1: a grow held open at gate1's launch; jobs submitted meanwhile park.
gate gate1
"$PRUN" -n 1 --add-host gate1 --host gate1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/grower.out" 2>"$TEST_TMP/grower.err" &
grower=$!
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, [^)]*): node(s) gate1" || fail "no grow campaign for --add-host gate1"
pids=""
for i in 1 2 3; do
    "$PRUN" -n 1 --host node1 --map-by :OVERSUBSCRIBE sh -c "$NODE_OF_RANK" >"$TEST_TMP/during$i.out" 2>"$TEST_TMP/during$i.err" &
    pids="$pids $!"
done
wait_for_lines "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the" 3 100
n=$(grep -c "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the" "$TEST_TMP/prte.err")
[ "$n" -ge 3 ] && pass "the 3 jobs arriving during the --add-host grow parked" || fail "$n job(s) parked during the grow"
[ ! -s "$TEST_TMP/during1.out" ] && [ ! -s "$TEST_TMP/during2.out" ] && [ ! -s "$TEST_TMP/during3.out" ] &&
    pass "none ran while the grow was open" || fail "a job ran while the grow was open"
open_gate gate1
wait "$grower" && [ "$(cat "$TEST_TMP/grower.out")" = gate1 ] && pass "the --add-host job ran on gate1" ||
    fail "the --add-host job: $(cat "$TEST_TMP/grower.out" "$TEST_TMP/grower.err")"
good=0
for p in $pids; do wait "$p" && good=$((good + 1)); done
[ $good -eq 3 ] && pass "the parked jobs ran once the grow completed" ||
    { fail "$good of 3 parked jobs ran"; cat "$TEST_TMP"/during*.err | sort | uniq -c | head -3; }
stop_fg_dvm
exit $failures
