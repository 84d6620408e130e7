#!/bin/sh
# A process's final report, relayed through an inner daemon that dies with it in hand, still
# reaches the master (issue 27, the fault bench/chaos found: the job never ended and kept its
# slots). Daemons send their reports again along the repaired tree (state/prted). On 4 local nodes
# with rml_radix 2 (0: 1,2  1: 3,4): a job runs on node3 alone; daemon 1 is stopped (SIGSTOP), so
# the reports of the job's end wait in its socket; then it is killed (kill -9), taking them with it.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 4 2
# Bounded: a job whose end never reaches the master fails the test instead of hanging it.
timeout -k 5 30 "$PRUN" -n 1 --host node3 sh -c "$UNTIL_STOPPED" job >"$TEST_TMP/job.out" 2>"$TEST_TMP/job.err" &
job=$!
wait_for_line "$TEST_TMP/job.out" "job running" || fail "the job did not start on node3"
relay=$(daemon_pid 1)
kill -STOP "$relay"
stop_running job
# node3's daemon has reaped the process and sent both final reports (output closed, reaped) to
# its parent, which cannot read them.
wait_for_line "$TEST_TMP/prte.err" "proc [^ ]*@1\.0 -> PRTE_PROC_STATE_WAITPID_FIRED (report_to_master)" ||
    fail "node3's daemon did not report the end of the job's process"
wait_for_line "$TEST_TMP/prte.err" "proc [^ ]*@1\.0 -> PRTE_PROC_STATE_IOF_COMPLETE (report_to_master)" ||
    fail "node3's daemon did not report the job's output closed"
grep -q "job [^ ]*@1 -> PRTE_JOB_STATE_TERMINATED" "$TEST_TMP/prte.err" && fail "the master heard of the end through a stopped daemon"
kill -9 "$relay"
kill -CONT "$relay" 2>/dev/null
wait_for_line "$TEST_TMP/prte.err" "the DVM carries on without node node1" && pass "the master carries on without node1" ||
    fail "no loss report for node1"
wait "$job"
status=$?
[ $status -eq 0 ] && pass "the job on node3 ends with status 0 after its relay died" ||
    { fail "prun exited $status (124: the job's end never reached the master)"; sed 's/^/    /' "$TEST_TMP/job.err"; }
grep -q "process report(s) sent again" "$TEST_TMP/prte.err" && pass "node3's daemon sent its reports again" ||
    fail "no daemon sent its reports again"
# Reports the master had already counted do no harm twice: a job across the survivors still runs.
run after "$PRUN" -n 3 --map-by node echo after
expect_status after 0
[ "$(grep -c after "$TEST_TMP/after.out")" -eq 3 ] && pass "a job across the survivors runs" ||
    fail "the job across the survivors printed: $(cat "$TEST_TMP/after.out")"
stop_fg_dvm
finish
