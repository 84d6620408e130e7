#!/bin/sh
# Issue 42 item 5: PMIX_EVENT_JOB_START and PMIX_LAUNCH_COMPLETE once every process of a job has
# started, to any tool registered for them (test/clients/debugtool events, connected to the master
# of a DVM of 2 local nodes, whose jobs run on the daemons' nodes only): exactly once per job, each
# before the job's end; the job's own tool hears JOB_START of its job once too (debugtool launch,
# in debugger_stop_points).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
TOOL="$PRTE_BUILDDIR/test/clients/debugtool"

start_local_nodes_dvm 2 2 --prtemca prte_set_slots 1
uri=$(sed -n 's/^uri=//p' "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID")

: >"$TEST_TMP/events.out"
"$TOOL" events "$uri" "$TEST_TMP/stop" >"$TEST_TMP/events.out" 2>"$TEST_TMP/events.err" &
listener=$!
wait_for_lines "$TEST_TMP/events.out" "^ready$" 1 100 "$listener"
run job1 "$PRUN" -n 2 true
expect_status job1 0
run job2 "$PRUN" -n 1 true
expect_status job2 0
touch "$TEST_TMP/stop"
wait "$listener"
[ $? -eq 0 ] && pass "the listening tool ended" || fail "listener: $(cat "$TEST_TMP/events.err")"

jobs=$(sed -n 's/^event JOB_START \(.*\)/\1/p' "$TEST_TMP/events.out" | sort -u)
[ "$(echo "$jobs" | grep -c .)" -eq 2 ] && pass "JOB_START named both jobs" || fail "events: $(cat "$TEST_TMP/events.out")"
for ns in $jobs; do
    starts=$(grep -c "^event JOB_START $ns$" "$TEST_TMP/events.out")
    launches=$(grep -c "^event LAUNCH_COMPLETE $ns$" "$TEST_TMP/events.out")
    [ "$starts" -eq 1 ] && [ "$launches" -eq 1 ] && pass "job $ns: JOB_START and LAUNCH_COMPLETE once each" ||
        fail "job $ns: $starts JOB_START, $launches LAUNCH_COMPLETE"
done
stop_dvm
finish
