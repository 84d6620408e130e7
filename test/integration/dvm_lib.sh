# Helpers for tests that run a real DVM (sourced after lib.sh). Every DVM a test starts lives in
# the test's own TMPDIR, so DVM discovery never sees another test's DVM, and stop_dvm (run by the
# EXIT trap too) leaves no process behind.
PRTE="$PRTE_BUILDDIR/src/tools/prte/prte"
PRUN="$PRTE_BUILDDIR/src/tools/prun/prun"
PTERM="$PRTE_BUILDDIR/src/tools/pterm/pterm"
export TMPDIR="$TEST_TMP"
DVM_PID=

# A test killed outright (CTest's timeout sends SIGKILL to the test and its descendants) runs no
# trap, and a daemonized prte is no descendant of it: it, its daemons and their jobs would run on.
# A watchdog, detached from the test and without its TMPDIR, waits for this shell to go, then
# ends every process still running with this test's TMPDIR and removes $TEST_TMP. After a
# normal end the EXIT trap has done both, and it finds nothing.
watch_test() {
    # ( ... & ): a grandchild, reparented at once, is no descendant CTest would kill with the test.
    (env -u TMPDIR setsid sh -c '
        tail --pid="$1" -f /dev/null
        for round in 1 2 3 4 5 6 7 8 9 10; do
            left=
            for env in /proc/[0-9]*/environ; do
                tr "\0" "\n" <"$env" 2>/dev/null | grep -qx "TMPDIR=$2" || continue
                p=${env#/proc/}; p=${p%/environ}
                kill -9 "$p" 2>/dev/null && left=1
            done
            [ -z "$left" ] && break
            sleep 0.5
        done
        rm -rf "$2"' prte-test-watchdog "$$" "$TEST_TMP" </dev/null >/dev/null 2>&1 &)
}
watch_test

# start_dvm [prte options...]: starts a daemonized DVM and waits for "DVM ready".
start_dvm() {
    "$PRTE" --daemonize "$@" >"$TEST_TMP/prte.out" 2>"$TEST_TMP/prte.err"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "DVM ready" "$TEST_TMP/prte.out"; then
        echo "FAIL: prte --daemonize exited $rc without 'DVM ready'"
        sed 's/^/    /' "$TEST_TMP/prte.out" "$TEST_TMP/prte.err"
        exit 1
    fi
    DVM_PID=$(ls "$TEST_TMP/prte.$(id -u)" | sed -n 's/^dvm\.\([0-9]*\)$/\1/p' | head -1)
    if [ -z "$DVM_PID" ]; then
        echo "FAIL: the DVM published no dvm.<pid> file in $TEST_TMP/prte.$(id -u)"
        exit 1
    fi
}

# alive PID: the process exists and has not exited (a daemonized prte that has exited stays a
# zombie until init reaps it, which kill -0 cannot tell from a running process).
alive() {
    s=$(ps -o stat= -p "$1" 2>/dev/null)
    [ -n "$s" ] && [ "${s#Z}" = "$s" ]
}

# stop_dvm: pterm, and if the DVM is still there after that, SIGKILL (a failure of its own).
stop_dvm() {
    [ -n "$DVM_PID" ] || return 0
    "$PTERM" >/dev/null 2>&1
    if alive "$DVM_PID"; then
        kill -9 "$DVM_PID" 2>/dev/null
        fail "the DVM (pid $DVM_PID) was still running after pterm"
    fi
    # PMIx 4.2.2 with system-server support deleted a 0700 TMPDIR, files and all, when the DVM
    # stopped (src/pmix/server.cc): the user's files in TMPDIR must survive.
    [ -e "$TEST_TMP/prte.out" ] || fail "the DVM's end removed files in TMPDIR ($TEST_TMP)"
    mkdir -p "$TEST_TMP"
    DVM_PID=
}

# Processes of this test's DVM still alive (children of the DVM, or the DVM itself).
dvm_leftovers() {
    ps -eo pid=,ppid=,args= | awk -v p="$DVM_PID" '$1 == p || $2 == p' | grep -v awk
}

# test_pids PGREP-ARGS...: the pids pgrep finds that belong to this test: their environment has
# this test's TMPDIR or one below it (prterun's), as every process of its DVMs and jobs has. Tests
# run in parallel (ctest -j), and another test may run the same program at the same time.
test_pids() {
    for p in $(pgrep "$@"); do
        { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -q "^TMPDIR=$TEST_TMP\(/.*\)\?$" && echo "$p"
    done
}

# A bystander job: `prun ... sh -c "$UNTIL_STOPPED" NAME` prints "NAME running", then runs until
# `stop_running NAME`, so that a check that it was not disturbed never depends on how long
# anything took (a timed `sleep` may have ended by itself before the disturbance reached it).
UNTIL_STOPPED="echo \"\$0 running\"; until [ -e '$TEST_TMP/stop.'\"\$0\" ]; do sleep 0.1; done"
stop_running() { : >"$TEST_TMP/stop.$1"; }

trap 'stop_dvm; rm -rf "$TEST_TMP"' EXIT
trap 'exit 130' INT TERM

# queued: how many jobs pstat shows in the DVM's queue (PSTAT set by the test).
queued() { "$PSTAT" 2>/dev/null | grep -c ' queued '; }
# wait_queued N: until pstat shows N queued jobs (at most 30 s, a wait for a condition).
wait_queued() {
    t=0
    while [ "$(queued)" != "$1" ]; do
        [ $t -ge 300 ] && return 1
        sleep 0.1
        t=$((t + 1))
    done
}
