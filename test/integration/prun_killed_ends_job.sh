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
"$PRUN" -n 1 --map-by :OVERSUBSCRIBE sleep 3 >"$TEST_TMP/other.out" 2>&1 &
other=$!
t=0; while [ "$(sleeps)" -lt 3 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(sleeps)" -eq 3 ] && pass "both jobs run" || fail "the jobs did not start"
kill -9 "$victim"
wait "$victim" 2>/dev/null
t=0; while [ "$(sleeps)" -gt 1 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(sleeps)" -eq 1 ] && pass "the killed prun's job was ended" || fail "$(sleeps) sleep process(es) left"
wait "$other"
[ $? -eq 0 ] && pass "the other prun's job ran to its end" || fail "the other job was ended"
grep -q "exited without ending it; ending the job" "$TEST_TMP/prte.err" && pass "prte says why" || fail "no reason logged"
run normal "$PRUN" -n 2 true
expect_status normal 0
stop_dvm
exit $failures
