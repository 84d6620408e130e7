#!/bin/sh
# prte_daemon_heartbeat_timeout's defaults and an explicit value outside elastic mode (issue 27
# item 8; the elastic case: hung_daemon_declared_lost.sh). A fixed DVM has no heartbeat unless
# asked: a stopped daemon is not declared lost, and once continued its job completes. An elastic
# DVM beats by default, with the 30 s timeout. An explicit timeout wins in a fixed DVM too: the
# stopped daemon is declared lost and handled as a lost daemon is there (the DVM ends), and once
# continued it exits with its processes.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

stopped=
trap 'kill -CONT $stopped 2>/dev/null; stop_dvm; rm -rf "$TEST_TMP"' EXIT
HEARTBEAT_ON='rml: daemon 0: heartbeat every'
LOST='longer than prte_daemon_heartbeat_timeout'

# Fixed mode, the default: no heartbeat at all.
start_local_nodes_dvm 2 2 --prtemca rml_base_verbose 5
grep -q "$HEARTBEAT_ON" "$TEST_TMP/prte.err" && fail "a fixed DVM runs a heartbeat by default" ||
    pass "a fixed DVM runs no heartbeat by default"
"$PRUN" -n 2 --map-by node sh -c "$UNTIL_STOPPED" fixedjob >"$TEST_TMP/fixedjob.out" 2>"$TEST_TMP/fixedjob.err" &
job=$!
wait_for_lines "$TEST_TMP/fixedjob.out" "fixedjob running" 2 100
stopped=$(daemon_pid 2)
kill -STOP "$stopped"
# Nothing to wait for but time: three seconds, longer than the explicit case below needs to decide.
sleep 3
grep -q "$LOST" "$TEST_TMP/prte.err" && fail "a stopped daemon was declared lost with the heartbeat off" ||
    pass "a stopped daemon is not declared lost with the heartbeat off"
alive "$DVM_PID" && pass "the DVM runs on" || fail "the DVM ended"
kill -CONT "$stopped"
stopped=
stop_running fixedjob
wait "$job"
[ $? -eq 0 ] && pass "continued, its job completes" || fail "the job failed: $(cat "$TEST_TMP/fixedjob.err")"
daemons=$(dvm_daemons)
"$PTERM" >/dev/null 2>&1
wait_gone "$DVM_PID" $daemons || fail "the DVM or its daemons outlived pterm"
DVM_PID=

# Elastic mode, the default: a heartbeat with the 30 s timeout.
start_local_nodes_dvm 1 2 --prtemca prte_elastic_mode 1 --prtemca rml_base_verbose 5
grep -q "$HEARTBEAT_ON 7.50 s to its parent; a child silent for 30.0 s is lost" "$TEST_TMP/prte.err" &&
    pass "an elastic DVM beats by default, 30 s timeout" || fail "no 30 s heartbeat in an elastic DVM: $(grep heartbeat "$TEST_TMP/prte.err")"
daemons=$(dvm_daemons)
"$PTERM" >/dev/null 2>&1
wait_gone "$DVM_PID" $daemons || fail "the DVM or its daemons outlived pterm"
DVM_PID=

# Fixed mode with an explicit timeout: a lost daemon, as dvm_daemon_loss.sh's.
start_local_nodes_dvm 2 2 --prtemca prte_daemon_heartbeat_timeout 2
timeout -k 5 60 "$PRUN" -n 2 --map-by node sleep 600 >"$TEST_TMP/span.out" 2>"$TEST_TMP/span.err" &
job=$!
wait_for_sleeps 2 || fail "the job did not start on both nodes"
stopped=$(daemon_pid 2)
theirs=$(pgrep -P "$stopped" -x sleep)
others=$(dvm_daemons)
kill -STOP "$stopped"
wait "$job"
status=$?
[ $status -ne 0 ] && [ $status -ne 124 ] && pass "the job spanning the stopped daemon failed ($status)" ||
    fail "the job spanning the stopped daemon exited $status (124: it hung)"
n=$(grep -c "daemon 2 on node node2 sent nothing for [0-9.]* s, $LOST (2 s): it is declared lost; aborting its jobs, and the DVM shuts down" "$TEST_TMP/prte.err")
[ "$n" -eq 1 ] && pass "one line declares daemon 2 lost and the DVM ends" || fail "$n such lines: $(grep "$LOST" "$TEST_TMP/prte.err")"
# Cleared only once gone: the EXIT trap stops a DVM still running.
if wait_gone "$DVM_PID"; then pass "the DVM shut down, as for a lost daemon"; DVM_PID=; else fail "the DVM still runs"; fi
kill -CONT "$stopped"
if wait_gone $others $theirs; then pass "continued, the daemon and its processes are gone"; else
    fail "left: $(ps -o pid=,args= -p "$(echo $others $theirs | tr ' ' ,)")"; fi
stopped=
finish
