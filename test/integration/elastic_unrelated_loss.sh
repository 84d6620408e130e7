#!/bin/sh
# Conformance item 4, and daemon loss in elastic mode outside any campaign: a daemon failure
# affects only the jobs waiting on the campaign it belongs to. node2's daemon is killed while a
# grow onto gate1 is in progress and a job is parked on it: the parked job is neither released
# nor aborted, the grow completes, and the job runs. The DVM itself survives the loss (the node
# leaves, its tree repaired once), a job that had a process there fails naming the node, other
# jobs are unaffected, and with elastic mode off the same loss still ends the DVM (dvm_daemon_loss).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

# pmix_server_verbose 2: the DVM logs every completion event it raises (or, in a build without
# the codes, every one it would raise), which the last check reads.
start_elastic_dvm 3 2 --prtemca pmix_server_verbose 2
# A job with a process on every node, one of which will be lost.
"$PRUN" -n 3 --map-by node sleep 60 >"$TEST_TMP/victim.out" 2>"$TEST_TMP/victim.err" &
victim=$!
t=0; while [ "$(running_sleeps | wc -l)" -lt 3 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
# A job elsewhere that must not notice: it runs until told to stop, so that it is still running
# whatever the loss's handling takes.
"$PRUN" -n 1 --host node1 sh -c "$UNTIL_STOPPED" bystander >"$TEST_TMP/bystander.out" 2>&1 &
bystander=$!
wait_for_line "$TEST_TMP/bystander.out" "bystander running" || fail "the job on node1 did not start"

gate gate1
run grow "$PALLOC" --do-not-wait -w gate1
grow_id=$(head -1 "$TEST_TMP/grow.out")
"$PRUN" -n 1 --host gate1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/parked.out" 2>"$TEST_TMP/parked.err" &
parked=$!
wait_for_line "$TEST_TMP/prte.err" "@3 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" || fail "the job on gate1 was not parked"
repairs=$(master_repairs)
kill -9 "$(daemon_pid 2)"
wait "$victim"
[ $? -ne 0 ] && pass "the job with a process on node2 failed" || fail "the job with a process on node2 exited 0"
grep -q "daemon 2 on node node2" "$TEST_TMP/victim.err" && pass "its message names node2" ||
    fail "prun's message: $(cat "$TEST_TMP/victim.err")"
wait_for_line "$TEST_TMP/prte.err" "the DVM carries on without node node2" && pass "prte reports the loss and carries on" ||
    fail "no loss report"
[ "$(master_repairs)" -eq $((repairs + 1)) ] && pass "the master repaired its tree once" ||
    fail "the master made $(( $(master_repairs) - repairs )) repairs"
alive "$parked" && pass "the parked job was neither released nor aborted by the unrelated loss" ||
    fail "the parked job ended: $(cat "$TEST_TMP/parked.err")"
grep -q "@3 -> PRTE_JOB_STATE_MAP " "$TEST_TMP/prte.err" && fail "the parked job was released early" || pass "still parked"
open_gate gate1
wait "$parked"
[ $? -eq 0 ] && [ "$(cat "$TEST_TMP/parked.out")" = gate1 ] && pass "the grow completed and the parked job ran on gate1" ||
    fail "parked job: $(cat "$TEST_TMP/parked.out" "$TEST_TMP/parked.err")"
alive "$bystander" && pass "the job on node1 still runs after the loss" || fail "the job on node1 ended"
stop_running bystander
wait "$bystander"
[ $? -eq 0 ] && pass "the job on node1 was unaffected" || fail "the job on node1 failed"
alive "$DVM_PID" && pass "the DVM survived the loss" || fail "the DVM ended"
run after "$PRUN" -n 4 --map-by node sh -c "$NODE_OF_RANK"
expect_status after 0
grep -q node2 "$TEST_TMP/after.out" && fail "a process ran on the lost node2" || pass "later jobs avoid node2"
# The grow's own outcome is logged (the stream is on: this check can fail); nothing else is.
grep "$EVENT_LINE" "$TEST_TMP/prte.err" | grep -q "allocation $grow_id[ :]" && pass "the grow's outcome is logged" ||
    fail "no completion event logged for $grow_id"
others=$(grep "$EVENT_LINE" "$TEST_TMP/prte.err" | grep -v "allocation $grow_id[ :]")
[ -z "$others" ] && pass "no completion event for an unrequested departure" || fail "events besides the grow's: $others"
stop_fg_dvm
exit $failures
