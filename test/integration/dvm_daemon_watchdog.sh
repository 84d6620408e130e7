#!/bin/sh
# A daemon never outlives its master, even with its event loop wedged (issue 14, item 2). The test
# parameter prte_test_wedge_on_sigusr2 blocks a daemon's loop for good on SIGUSR2, as a PMIx
# callback that never returned once did; only the exit watchdog (prted/exit_watchdog.cc), a thread
# that needs no event loop, can end such a daemon. And pterm never hangs on one: the DVM waits a
# bounded time, then pterm says which daemons did not answer and what was done about them.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

# wedge RANK: blocks daemon RANK's event loop and waits for it to say so.
wedge() {
    kill -USR2 "$(daemon_pid "$1")"
    wait_for_line "$TEST_TMP/prte.err" "daemon $1: event loop wedged on purpose" ||
        fail "daemon $1 did not report its wedged loop"
}

# 1. The master killed while daemon 1's loop is wedged: daemon 1 cannot see the lost connection
#    through its loop; the watchdog ends it, and its processes with it.
start_local_nodes_dvm 2 2 --prtemca prte_test_wedge_on_sigusr2 1 --prtemca prte_daemon_exit_timeout 2
"$PRUN" -n 2 --map-by node sleep 600 >/dev/null 2>&1 &
wait_for_sleeps 2 || fail "the job did not start on both nodes"
sleeps=$(running_sleeps)
daemons=$(dvm_daemons)
wedge 1
kill -9 "$DVM_PID"
wait "$DVM_PID" 2>/dev/null
DVM_PID=
if wait_gone $daemons; then pass "a wedged daemon exits once its master is gone"; else
    fail "daemons outlived the master: $(dvm_daemons)"; kill -9 $daemons 2>/dev/null; fi
if wait_gone $sleeps; then pass "the wedged daemon's processes were killed"; else
    fail "application processes outlived the master"; kill -9 $sleeps 2>/dev/null; fi
left=$(ls -d "$TEST_TMP/prte.$(id -u)"/*.d1.session 2>/dev/null)
[ -z "$left" ] && pass "the wedged daemon's session directory went with it" || fail "session directory left: $left"
wait

# 2. pterm with daemon 2 wedged: it returns, names daemon 2 and says what was done; daemon 2 and its
#    processes then go by themselves.
start_local_nodes_dvm 2 2 --prtemca prte_test_wedge_on_sigusr2 1 --prtemca prte_daemon_exit_timeout 2
"$PRUN" -n 2 --map-by node sleep 600 >/dev/null 2>&1 &
wait_for_sleeps 2 || fail "the job did not start on both nodes"
sleeps=$(running_sleeps)
daemons=$(dvm_daemons)
wedge 2
# A hang guard only: the DVM's own bound is 2 + 2 s.
run pterm timeout 60 "$PTERM"
expect_status pterm 0
expect_line pterm err "daemon(s) 2 (node2) did not answer the order to exit within 4 s"
expect_line pterm err "launchers were stopped"
if wait_gone "$DVM_PID"; then pass "the DVM exited"; else fail "the DVM is still running after pterm"; fi
DVM_PID=
if wait_gone $daemons; then pass "the wedged daemon ended itself after the DVM stopped"; else
    fail "daemons left after pterm: $(dvm_daemons)"; kill -9 $daemons 2>/dev/null; fi
if wait_gone $sleeps; then pass "no application process left"; else
    fail "application processes left after pterm"; kill -9 $sleeps 2>/dev/null; fi
[ -z "$(ls "$TEST_TMP/prte.$(id -u)" 2>/dev/null | grep teardown)" ] && pass "pterm took the DVM's note" ||
    fail "the teardown note was left behind"
wait

# 3. A daemon that is not wedged still exits the ordinary way, before any bound: pterm says nothing.
start_local_nodes_dvm 2 2 --prtemca prte_daemon_exit_timeout 2
run pterm2 timeout 60 "$PTERM"
expect_status pterm2 0
if [ -s "$TEST_TMP/pterm2.err" ]; then fail "pterm printed on an ordinary stop:"; sed 's/^/    /' "$TEST_TMP/pterm2.err"; else
    pass "an ordinary stop is silent"; fi
DVM_PID=
finish
