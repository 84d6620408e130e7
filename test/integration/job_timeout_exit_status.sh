#!/bin/sh
# prun --timeout ends a job with exit status 110 (ETIMEDOUT), as mpirun 4.1 does, and says so in
# one line (issue 41, item 4). MPIEXEC_TIMEOUT sets the timeout as mpirun reads it, and --timeout
# wins over it; a bad value is refused naming it. --spawn-timeout leaves alone a job whose
# processes started in time (job_spawn_timeout shows one that did not).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"

start_dvm

run timed "$PRUN" -n 1 --timeout 1 sleep 60
expect_status timed 110
expect_line timed err "timed out after 1 seconds"

# MPIEXEC_TIMEOUT alone.
run env_timed env MPIEXEC_TIMEOUT=1 "$PRUN" -n 1 sleep 60
expect_status env_timed 110
expect_line env_timed err "timed out after 1 seconds"

# --timeout wins: with MPIEXEC_TIMEOUT's 1 s this job would be ended before its 3 s are up.
run env_loses env MPIEXEC_TIMEOUT=1 "$PRUN" -n 1 --timeout 60 sh -c 'sleep 3; echo survived'
expect_status env_loses 0
expect_line env_loses out "survived"

run env_bad env MPIEXEC_TIMEOUT=soon "$PRUN" -n 1 true
expect_status env_bad 2
expect_line env_bad err "MPIEXEC_TIMEOUT=soon: expected a number of seconds"

# A report asked for without a timeout is said to do nothing; the job runs.
run no_timeout "$PRUN" -n 1 --report-state-on-timeout true
expect_status no_timeout 0
expect_line no_timeout err "--report-state-on-timeout does nothing without --timeout"

# Started in time, then running past its --spawn-timeout: the spawn timer was cancelled once the
# job ran, so only the program's own end ends it.
run started "$PRUN" -n 2 --spawn-timeout 5 sh -c 'sleep 6; echo ran'
expect_status started 0
[ "$(grep -c '^ran$' "$TEST_TMP/started.out")" = 2 ] && pass "both ranks ran past --spawn-timeout" ||
    { fail "the job was cut short:"; sed 's/^/    /' "$TEST_TMP/started.out" "$TEST_TMP/started.err"; }

finish
