# What users see when things go wrong: each a clear message and the right exit status, and the DVM
# keeps running jobs afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

run nodvm "$PRUN" -n 1 true
[ "$(status_of nodvm)" -ne 0 ] && pass "prun without a DVM fails" || fail "prun without a DVM exited 0"
expect_line nodvm err "no DVM is running"

start_dvm

run missing "$PRUN" -n 1 ./no-such-program
[ "$(status_of missing)" -ne 0 ] && pass "missing executable fails" || fail "missing executable exited 0"
expect_line missing err "no-such-program"

# A job aborted while its ranks start: each rank is signalled while it may still be between fork
# and exec. A child that still had the DVM's signal handlers passed a SIGTERM on to the DVM,
# which then shut down (about one run in four). Repeated so that the window is hit.
lost=
for i in $(seq 20); do
    "$PRUN" -n 2 ./no-such-program >/dev/null 2>&1
    alive "$DVM_PID" || { lost=$i; break; }
done
[ -z "$lost" ] && pass "20 aborted launches left the DVM running" || fail "the DVM stopped after aborted launch $lost"

printf 'not a program\n' >"$TEST_TMP/notexec"
chmod 0644 "$TEST_TMP/notexec"
run notexec "$PRUN" -n 1 "$TEST_TMP/notexec"
[ "$(status_of notexec)" -ne 0 ] && pass "non-executable file fails" || fail "non-executable file exited 0"
expect_line notexec err "notexec"

run killed "$PRUN" -n 2 sh -c 'if [ "$PMIX_RANK" = 1 ]; then kill -9 $$; fi; sleep 60'
[ "$(status_of killed)" -ne 0 ] && pass "a killed rank fails the job" || fail "a killed rank: exit 0"
expect_line killed err "rank 1"
expect_line killed err "signal 9"

run timeout "$PRUN" -n 1 --timeout 1 sleep 60
[ "$(status_of timeout)" -ne 0 ] && pass "timeout fails the job" || fail "timeout: exit 0"
expect_line timeout err "timed out after 1 seconds"

run badopt "$PRUN" --no-such-option
expect_status badopt 2

run still "$PRUN" -n 1 echo still-alive
expect_status still 0
expect_line still out "still-alive"
if [ -z "$(dvm_leftovers | grep -v prte)" ]; then pass "no stray processes"; else fail "stray processes: $(dvm_leftovers)"; fi

finish
