#!/bin/sh
# A job's --timeout timer is the job's own: it is cancelled when the job ends (issue 46, item 1).
# It was a fire-and-forget timer freed only when it fired, so every job that ended in time left one
# armed on the master's loop for its whole --timeout (10,000 jobs with --timeout 86400: 10,000
# armed events for a day). The master says, as it cleans up each job (state_base_verbose 5), how
# many timers are armed on its loop as libevent counts them, whoever made them: with the leak the
# count grows by one per job, with the timer owned by the job it stays the same.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

jobs=20
line="timer(s) armed on the loop"
# In the foreground: its verbose lines go to $TEST_TMP/prte.err.
start_dvm_foreground --prtemca state_base_verbose 5

ran=0
for i in $(seq $jobs); do
    "$PRUN" -n 1 --timeout 86400 true >/dev/null 2>&1 && ran=$((ran + 1))
done
[ "$ran" -eq "$jobs" ] && pass "$jobs jobs with --timeout 86400 ran" || fail "only $ran of $jobs jobs with --timeout 86400 ran"

# prun returns on the job's end event; the cleanup that reports follows it at once.
wait_for_lines "$TEST_TMP/prte.err" "$line" "$jobs" 100 "$DVM_PID"
counts=$(sed -n "s/.*cleaned up; \([0-9]*\) $line.*/\1/p" "$TEST_TMP/prte.err")
reported=$(echo "$counts" | grep -c .)
[ "$reported" -eq "$jobs" ] && pass "the master reported the armed timers at each job's cleanup" ||
    fail "the master reported the armed timers at $reported job cleanups, not $jobs"
first=$(echo "$counts" | head -1)
last=$(echo "$counts" | tail -1)
if [ -n "$first" ] && [ "$(echo "$counts" | sort -u | wc -l)" -eq 1 ]; then
    pass "the armed timers stayed at $first over $jobs jobs: each job's --timeout timer went with it"
else
    fail "armed timers at each job's cleanup: $(echo $counts) (from $first to $last): jobs that ended left timers armed"
fi

# The timer still does its work: a job that overruns is ended, and its spent timer leaves nothing.
run timed "$PRUN" -n 1 --timeout 1 sleep 60
[ "$(status_of timed)" -ne 0 ] && pass "a job past its --timeout fails" || fail "a job past its --timeout exited 0"
expect_line timed err "timed out after 1 seconds"
wait_for_lines "$TEST_TMP/prte.err" "$line" $((jobs + 1)) 100 "$DVM_PID"
after=$(sed -n "s/.*cleaned up; \([0-9]*\) $line.*/\1/p" "$TEST_TMP/prte.err" | sed -n "$((jobs + 1))p")
[ -n "$after" ] && [ "$after" = "$first" ] && pass "the timed-out job left no timer armed either" ||
    fail "armed timers after the timed-out job: $after, before it: $first"

finish
