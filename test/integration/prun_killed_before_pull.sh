#!/bin/sh
# A prun killed after its job started but before it asked for the job's output: the master lets
# go of the output held for it at once, so the job ends and its slots are free again, instead of
# waiting out the hold's 10 s limit for a pull that cannot come (found by killing pruns at random
# moments: a burst of killed pruns left the DVM "out of slots" for 10 s). Without racing prun: the
# testing hook prte_test_hold_launch holds the job mapped, not launched, while prun is stopped; a
# grow releases it, so it runs with prun unable to pull.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

PSTAT="$PRTE_BUILDDIR/src/tools/pstat/pstat"
HELD="PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary"
start_elastic_dvm 1 2 --prtemca prte_test_hold_launch 1 --prtemca pmix_server_verbose 5
"$PRUN" -n 1 sh -c "echo hello; : >'$TEST_TMP/ran'; exec $UNTIL_STOPPED" job >"$TEST_TMP/a.out" 2>"$TEST_TMP/a.err" &
launcher=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> $HELD" || fail "job @1 was not held at LAUNCH_APPS"
kill -STOP $launcher
# The grow's start releases the job from the hook; it runs while its prun cannot ask for output.
run grow "$PALLOC" --do-not-wait -w node2
expect_status grow 0
t=0
while [ ! -e "$TEST_TMP/ran" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ -e "$TEST_TMP/ran" ] && pass "the job runs with its prun stopped" || fail "job @1 did not run"
kill -9 $launcher
wait $launcher 2>/dev/null
wait_for_line "$TEST_TMP/prte.err" "output of job [^ ]*@1 released" || fail "the output held for the killed prun stays held"
grep -q "output of job [^ ]*@1 released (its spawner is gone)" "$TEST_TMP/prte.err" &&
    pass "the output held for the killed prun is let go of at once" ||
    fail "the output was released otherwise: $(grep "output of job [^ ]*@1 released" "$TEST_TMP/prte.err")"
wait_for_line "$TEST_TMP/prte.err" "job [^ ]*@1 deregistered" && pass "job @1 ended" || fail "job @1 did not end"
stop_running job
# Its slot is free (pstat: no slot in use on any node). A job cannot show it here: the hook would
# hold it too.
inuse=$("$PSTAT" 2>/dev/null | awk '$2 == "up" { n += $4 } END { print n + 0 }')
[ "$inuse" -eq 0 ] && pass "no slot is in use after the job ended" ||
    { fail "$inuse slot(s) still in use:"; "$PSTAT" | sed 's/^/    /'; }
grep -q hello "$TEST_TMP/a.out" && fail "the killed prun printed its job's output"
stop_fg_dvm
finish
