#!/bin/sh
# Issue 31 item 1: a daemonized DVM logs somewhere. With --log-file, its messages after "DVM ready"
# (verbose streams, PMIx_Log lines, the daemons' lines with their node) are in that file, SIGHUP
# reopens it (logrotate moves it away, the DVM carries on in a new one), and the registry and
# pterm --verbose say where it is. Without --log-file, a daemonized DVM logs to prte.log in its
# session directory, recorded the same way.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
LOG="$TEST_TMP/dvm.log"

: >"$TEST_TMP/hosts"
for i in 1 2; do echo "node$i" >>"$TEST_TMP/hosts"; done
start_dvm --log-file "$LOG" --prtemca pmix_server_verbose 2 --hostfile "$TEST_TMP/hosts" \
    --prtemca plm_ssh_agent "$LOCAL_AGENT" --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo
registry="$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID"
grep -qx "log=$LOG" "$registry" && pass "the registry records the log file" || fail "registry: $(cat "$registry")"

run logger "$PRUN" -n 2 --map-by node "$CLIENTS/logger"
expect_status logger 0
grep -q "log from .*:1: logger rank 1 sends a message blob" "$LOG" && pass "PMIx_Log lines are in the log" ||
    fail "no PMIx_Log line in the log: $(tail -5 "$LOG")"
grep -q "spawns job" "$LOG" && pass "the verbose stream is in the log" || fail "no verbose line in the log"
grep -q "^\[node2\] daemon 2: .*pmix_server" "$LOG" && pass "a daemon's lines are in the log, with its node and rank" ||
    fail "no line of node2's daemon in the log: $(tail -5 "$LOG")"

# A healthy DVM's log holds no error (the master's own copy of a broadcast was once reported as a
# message from another build).
grep "error:" "$LOG" >"$TEST_TMP/log_errors" && fail "the log of a healthy DVM holds errors: $(head -3 "$TEST_TMP/log_errors")" ||
    pass "no error line in a healthy DVM's log"

# logrotate: move the file away, SIGHUP; the DVM writes a new one and keeps the old one's lines.
mv "$LOG" "$LOG.1"
kill -HUP "$DVM_PID"
t=0
while [ ! -e "$LOG" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
run after "$PRUN" -n 1 "$CLIENTS/logger"
expect_status after 0
alive "$DVM_PID" && pass "the DVM carries on after SIGHUP" || fail "SIGHUP stopped the DVM"
grep -q "logger rank 0 says hello" "$LOG" && pass "after SIGHUP the log is written anew" ||
    fail "the reopened log lacks the new job: $(ls -l "$TEST_TMP")"
grep -q "logger rank 1 sends a message blob" "$LOG.1" && pass "the moved log keeps what was written before" ||
    fail "the moved log lost its lines"

run pterm_verbose "$PTERM" --verbose
expect_status pterm_verbose 0
expect_line pterm_verbose err "its log: $LOG"
DVM_PID=

# A log file that cannot be written is refused before anything starts.
run bad_log "$PRTE" --daemonize --log-file "$TEST_TMP/no/such/dir/dvm.log"
expect_status bad_log 2
expect_line bad_log err "--log-file $TEST_TMP/no/such/dir/dvm.log: cannot write the file"

# No --log-file: the session directory's prte.log.
start_dvm --prtemca pmix_server_verbose 2
registry="$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID"
default_log=$(sed -n 's/^log=//p' "$registry")
case $default_log in
*.session/prte.log) pass "a daemonized DVM logs to prte.log in its session directory ($default_log)" ;;
*) fail "default log: '$default_log'" ;;
esac
run hello "$PRUN" -n 1 "$CLIENTS/logger"
grep -q "logger rank 0 says hello" "$default_log" && pass "it holds the DVM's messages" || fail "nothing in $default_log"
stop_dvm

# --debug-daemons-file: each daemon's lines in a file of its own beside the log, none in the log.
LOG="$TEST_TMP/d/dvm.log"
mkdir -p "$TEST_TMP/d"
start_dvm --log-file "$LOG" --debug-daemons-file --prtemca pmix_server_verbose 2 --hostfile "$TEST_TMP/hosts" \
    --prtemca plm_ssh_agent "$LOCAL_AGENT" --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo
registry="$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID"
grep -qx "daemon_logs=$TEST_TMP/d/prted.\*.log" "$registry" && pass "the registry records the daemons' files" ||
    fail "registry: $(cat "$registry")"
run per_daemon "$PRUN" -n 2 --map-by node "$CLIENTS/logger"
expect_status per_daemon 0
for r in 1 2; do
    grep -q "pmix_server" "$TEST_TMP/d/prted.$r.node$r.log" && pass "daemon $r's lines are in prted.$r.node$r.log" ||
        fail "daemon $r's file: $(ls "$TEST_TMP/d")"
done
grep -q "^\[node[12]\] daemon" "$LOG" && fail "a daemon's line went to the master's log too" ||
    pass "the master's log holds no daemon line"
grep -q "spawns job" "$LOG" && pass "the master's own lines stay in its log" || fail "the master's log lost its lines"
run pterm_daemons "$PTERM" --verbose
expect_status pterm_daemons 0
expect_line pterm_daemons err "its daemons' logs: $TEST_TMP/d/prted.*.log"
DVM_PID=
finish
