#!/bin/sh
# A job ended while it is still launching leaves nothing behind (issue 14, item 11).
# 1. Daemon side: daemon 1 is stopped (SIGSTOP) so that the launch order waits in its socket; the
#    job times out meanwhile, so the master, knowing no pid of it, can only send cleanup. When
#    daemon 1 resumes it reads the launch (starting rank 0) and then the cleanup, which must kill
#    rank 0 rather than forget it.
# 2. Master side: a job held at LAUNCH_APPS (prte_test_hold_launch) and ended there (its prun
#    interrupted before the spawn was answered) never starts when the hold is released.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

sleeps_of() { pgrep -P "$1" -x sleep; }

# 1.
start_local_nodes_dvm 2 2
d1=$(daemon_pid 1)
kill -STOP "$d1"
# The timeout ends the job before any pid is known: the master can only send cleanup.
run timed timeout 60 "$PRUN" --timeout 1 -n 1 --host node1 sleep 600
[ "$(status_of timed)" -ne 0 ] && pass "prun fails with the timed-out job" || fail "prun exited 0 for a timed-out job"
grep -q "timed out" "$TEST_TMP/timed.err" && pass "the job timed out while its launch was on its way" ||
    { fail "no timeout reported:"; sed 's/^/    /' "$TEST_TMP/timed.err"; }
kill -CONT "$d1"
# Daemon 1 reads its messages in order: once a later job has run on node1, the launch and the
# cleanup of the timed-out one have both been handled.
run later "$PRUN" -n 2 --map-by node true
expect_status later 0
left=$(sleeps_of "$d1")
[ -z "$left" ] && pass "no rank of the ended job was left on node1" ||
    { fail "rank 0 of the ended job was left running on node1 (pid $left)"; kill -9 $left; }
stop_dvm

# 2.
start_elastic_dvm 3 2 --prtemca prte_test_hold_launch 1
"$PRUN" -n 3 --map-by node sleep 600 >"$TEST_TMP/held.out" 2>"$TEST_TMP/held.err" &
held=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary" ||
    fail "job @1 was not held at LAUNCH_APPS"
# prun is interrupted before its spawn is answered: it leaves at once, and the DVM, watching its
# pid, ends the job it asked for.
kill -TERM "$held"
wait "$held"
held_status=$?
[ "$held_status" -eq 143 ] && pass "an interrupted prun leaves at once (143)" || fail "prun exited $held_status, not 143"
grep -q "interrupted before the job started" "$TEST_TMP/held.err" && pass "prun says the DVM ends the job" ||
    { fail "prun's message:"; sed 's/^/    /' "$TEST_TMP/held.err"; }
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_KILLED_BY_CMD" || fail "job @1 was not ended by the DVM"
run shrink "$PALLOC" --shrink initial -w node3
expect_status shrink 0
# The shrink has released the launch boundary by the time palloc returns (every job is held
# again until then, so no later job can serve as a marker here).
grep -q "@1: released from the launch boundary" "$TEST_TMP/prte.err" &&
    fail "the killed job was released from the launch boundary" || pass "the killed job stayed ended"
grep -q "job .*@1: .* process(es) here" "$TEST_TMP/prte.err" && fail "launch data of the killed job reached a daemon" ||
    pass "no launch data of the killed job was sent"
n=0
for d in $(dvm_daemons); do n=$((n + $(sleeps_of "$d" | wc -l))); done
[ "$n" -eq 0 ] && pass "no process of the killed job started" || fail "$n process(es) of the killed job started"
stop_fg_dvm
finish
