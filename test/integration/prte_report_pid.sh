#!/bin/sh
# prte --report-pid as PRRTE has it: the DVM's pid once it is ready, to a file, stdout (-) or
# stderr (+); the pid is the daemonized prte's, the one prun/pterm --dvm pid:<n> take. A file that
# cannot be written is a one-line usage error before any DVM starts.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"

# --- to a file; the pid is the running DVM's (the one the registry names) ---
start_dvm --report-pid "$TEST_TMP/dvm.pid"
pid=$(cat "$TEST_TMP/dvm.pid" 2>/dev/null)
[ "$pid" = "$DVM_PID" ] && pass "the pid file names the DVM ($pid)" || fail "pid file '$pid', DVM $DVM_PID"
alive "$pid" && pass "pid $pid is alive" || fail "pid $pid is not running"
run by_pid "$PRUN" --dvm "pid:$pid" -n 1 echo via-pid
expect_line by_pid out "via-pid"
# What scripts use it for: PMIx's pps attaches to the DVM by that pid.
if command -v pps >/dev/null 2>&1; then
    run pps sh -c "pps --pid $pid 2>&1"  # pps writes its answer on stderr
    expect_status pps 0
    expect_line pps out "Active nspaces: prte-"
fi
run stop "$PTERM" --dvm "pid:$pid"
expect_status stop 0
alive "$pid" && fail "pterm --dvm pid:$pid left it running" || pass "pterm --dvm pid:$pid stopped it"
DVM_PID=

# --- to stdout: the pid line before "DVM ready" ---
"$PRTE" --daemonize --report-pid - >"$TEST_TMP/out" 2>"$TEST_TMP/err"
pid=$(head -1 "$TEST_TMP/out")
if [ "$(sed -n 2p "$TEST_TMP/out")" = "DVM ready" ] && alive "$pid"; then
    pass "--report-pid - printed the live DVM's pid ($pid) before DVM ready"
else
    fail "--report-pid -: $(cat "$TEST_TMP/out" "$TEST_TMP/err")"
fi
DVM_PID=$pid
stop_dvm

# --- to stderr ---
"$PRTE" --daemonize --report-pid + >"$TEST_TMP/out" 2>"$TEST_TMP/err"
pid=$(cat "$TEST_TMP/err")
case "$pid" in
'' | *[!0-9]*)
    fail "--report-pid +: stderr is '$pid'"
    "$PTERM" >/dev/null 2>&1 ;;  # the DVM may be running all the same: never leave it behind
*) alive "$pid" && pass "--report-pid + printed the live DVM's pid on stderr" || fail "pid $pid not running" ;;
esac
DVM_PID=$pid
stop_dvm

# --- an unwritable file: exit 2, one line naming the option and the file, no DVM ---
run unwritable "$PRTE" --daemonize --report-pid "$TEST_TMP/no/such/dir/pid"
expect_status unwritable 2
expect_one_line_errors unwritable
expect_line unwritable err "--report-pid $TEST_TMP/no/such/dir/pid: cannot write the file"
if ls "$TEST_TMP/prte.$(id -u)"/dvm.* >/dev/null 2>&1; then fail "a DVM was started"; else pass "no DVM started"; fi

finish
