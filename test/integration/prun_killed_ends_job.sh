#!/bin/sh
# Issue 14, item 5: a prun killed with SIGKILL used to leave its job running for ever (PMIx 4.2.2
# never tells the DVM that a tool left). prun now tells the DVM its pid; the DVM watches it and
# ends the job when prun is gone. Jobs of other pruns are not touched, and a prun that ends
# normally changes nothing.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_dvm_foreground --prtemca pmix_server_verbose 1
sleeps() { pgrep -x sleep -P "$DVM_PID" | wc -l; }
"$PRUN" -n 2 --map-by :OVERSUBSCRIBE sleep 600 >"$TEST_TMP/victim.out" 2>&1 &
victim=$!
# The other job runs until told to stop (dvm_lib.sh), however long ending the victim takes.
"$PRUN" -n 1 --map-by :OVERSUBSCRIBE sh -c "$UNTIL_STOPPED" other >"$TEST_TMP/other.out" 2>&1 &
other=$!
t=0; while [ "$(sleeps)" -lt 2 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
wait_for_line "$TEST_TMP/other.out" "other running"
[ "$(sleeps)" -eq 2 ] && grep -q "other running" "$TEST_TMP/other.out" && pass "both jobs run" || fail "the jobs did not start"
kill -9 "$victim"
wait "$victim" 2>/dev/null
t=0; while [ "$(sleeps)" -gt 0 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(sleeps)" -eq 0 ] && pass "the killed prun's job was ended" || fail "$(sleeps) sleep process(es) left"
wait_for_line "$TEST_TMP/prte.err" "exited without ending it; ending the job" && pass "prte says why" || fail "no reason logged"
alive "$other" && pass "the other prun's job still runs" || fail "the other job was ended"
stop_running other
wait "$other"
[ $? -eq 0 ] && pass "the other prun's job ran to its end" || fail "the other job was ended: $(cat "$TEST_TMP/other.out")"
run normal "$PRUN" -n 2 true
expect_status normal 0
stop_dvm
exit $failures
