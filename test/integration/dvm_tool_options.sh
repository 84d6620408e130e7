#!/bin/sh
# What PRRTE's prte, prterun, pterm and prte_info options do here (issue 41 item 6), each seen
# from outside: prte's DVM-wide job defaults (-x, --timeout, --display, --runtime-options
# autorestart,max-restarts) reach every job and a job's own setting wins; --no-ready-msg; --keepalive ends the DVM when its pipe closes;
# --system-server is what prun --system-server-only/-first use and pterm --system-server-only stops; pterm --pid, --namespace and
# --num-connect-retries; prterun --dvm pid:N runs in that DVM and starts none, prterun
# --report-pid - and --tmpdir; prte_info --path, --arch, --show-version.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"

# --- DVM-wide defaults: -x, --timeout, --display -------------------------------------------
DVM_VAR=from_dvm
export DVM_VAR
start_dvm -x DVM_VAR -x OTHER=given --timeout 2 --display map --runtime-options autorestart,max-restarts=2
run env_default "$PRUN" -n 1 sh -c 'echo "var=$DVM_VAR other=$OTHER"'
expect_status env_default 0
expect_line env_default out "var=from_dvm other=given"
run env_own "$PRUN" -n 1 -x OTHER=mine sh -c 'echo "other=$OTHER"'
expect_line env_own out "other=mine"
# The map, asked for by the DVM, comes before the job's output.
expect_line env_default out "Process rank: 0 "
# The DVM's timeout ends a job without one of its own, with mpirun's status.
run timeout_default "$PRUN" -n 1 sleep 30
expect_status timeout_default 110
run timeout_own "$PRUN" -n 1 --timeout 20 sh -c 'sleep 3; echo done'
expect_status timeout_own 0
expect_line timeout_own out done
# The DVM's restarts (autorestart,max-restarts=2): a rank that always fails runs 3 times, then the
# job fails with its status; a job's own --max-restarts wins.
run restarts_default "$PRUN" -n 1 sh -c "echo run >>$TEST_TMP/restarts_default.count; exit 3"
expect_status restarts_default 3
[ "$(wc -l <"$TEST_TMP/restarts_default.count")" = 3 ] && pass "the DVM's max-restarts=2: 3 runs" ||
    fail "the DVM's restarts: $(wc -l <"$TEST_TMP/restarts_default.count") run(s)"
run restarts_own "$PRUN" -n 1 --max-restarts 1 sh -c "echo run >>$TEST_TMP/restarts_own.count; exit 3"
expect_status restarts_own 3
[ "$(wc -l <"$TEST_TMP/restarts_own.count")" = 2 ] && pass "a job's own --max-restarts 1: 2 runs" ||
    fail "the job's own restarts: $(wc -l <"$TEST_TMP/restarts_own.count") run(s)"
stop_dvm

# --- --no-ready-msg, --system-server, pterm --system-server-only / --pid / --namespace -------
run quiet "$PRTE" --daemonize --no-ready-msg --system-server --report-pid "$TEST_TMP/sys.pid"
expect_status quiet 0
expect_no_line quiet out "DVM ready"
SYS=$(cat "$TEST_TMP/sys.pid")
start_dvm --report-pid "$TEST_TMP/other.pid"
OTHER=$(cat "$TEST_TMP/other.pid")
# prun's --system-server-only and --system-server-first find the system server among two DVMs.
SYS_NS=$(sed -n 's/^nspace=//p' "$TEST_TMP/prte.$(id -u)/dvm.$SYS")
for choice in only first; do
    run "prun_sys_$choice" "$PRUN" --system-server-$choice -n 1 sh -c 'echo "ns=$PMIX_NAMESPACE"'
    expect_status "prun_sys_$choice" 0
    expect_line "prun_sys_$choice" out "ns=${SYS_NS%%@*}"
done
run stop_sys "$PTERM" --system-server-only
expect_status stop_sys 0
alive "$SYS" && fail "pterm --system-server-only left the system server (pid $SYS) running"
alive "$OTHER" || fail "pterm --system-server-only stopped the other DVM (pid $OTHER)"
NS=$(sed -n 's/^nspace=//p' "$TEST_TMP/prte.$(id -u)/dvm.$OTHER")
run prun_first_other "$PRUN" --system-server-first -n 1 sh -c 'echo "ns=$PMIX_NAMESPACE"'
expect_status prun_first_other 0
expect_line prun_first_other out "ns=${NS%%@*}"
run prun_no_sys "$PRUN" --system-server-only -n 1 true
expect_status prun_no_sys 1
expect_line prun_no_sys err "no DVM started with prte --system-server"
run stop_ns "$PTERM" --namespace "$NS"
expect_status stop_ns 0
alive "$OTHER" && fail "pterm --namespace $NS left the DVM running"
DVM_PID=
run no_sys "$PTERM" --system-server-only
expect_status no_sys 1
expect_line no_sys err "no DVM started with prte --system-server"
# --num-connect-retries: the DVM started while pterm looks again.
run_later() { sleep 1; "$PRTE" --daemonize --report-pid "$TEST_TMP/late.pid" >/dev/null 2>&1; }
run_later &
run retries "$PTERM" --num-connect-retries 10 --wait-to-connect 1
expect_status retries 0
wait
alive "$(cat "$TEST_TMP/late.pid")" && fail "pterm --num-connect-retries did not stop the DVM that came up"
run no_retry "$PTERM" --pid 1
expect_status no_retry 1

# --- --keepalive: the DVM ends when the pipe's other end closes -------------------------------
mkfifo "$TEST_TMP/keep"
# The writer holds the pipe until it is told to go ("$TEST_TMP/stop.keep").
(exec 9>"$TEST_TMP/keep"; until [ -e "$TEST_TMP/stop.keep" ]; do sleep 0.1; done) &
writer=$!
exec 7<"$TEST_TMP/keep"
run keep "$PRTE" --daemonize --keepalive 7 --report-pid "$TEST_TMP/keep.pid"
exec 7<&-
expect_status keep 0
KEEP=$(cat "$TEST_TMP/keep.pid")
alive "$KEEP" || fail "prte --keepalive ended before its pipe closed"
: >"$TEST_TMP/stop.keep"
wait "$writer"
t=0
while alive "$KEEP" && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
alive "$KEEP" && { fail "prte --keepalive still runs 10 s after its pipe closed"; kill "$KEEP"; } ||
    pass "prte --keepalive ended when its pipe closed"

# --- prterun --dvm pid:N runs in that DVM; --report-pid -; --tmpdir ---------------------------
start_dvm --report-pid "$TEST_TMP/dvm.pid"
run in_dvm "$PRTERUN" --dvm "pid:$(cat "$TEST_TMP/dvm.pid")" -n 1 sh -c 'echo "ns=$PMIX_NAMESPACE"'
expect_status in_dvm 0
NS=$(sed -n 's/^nspace=//p' "$TEST_TMP/prte.$(id -u)/dvm.$(cat "$TEST_TMP/dvm.pid")")
grep -q "^ns=${NS%%@*}" "$TEST_TMP/in_dvm.out" && pass "prterun --dvm ran its job in DVM $NS" ||
    fail "prterun --dvm: job not in DVM $NS: $(cat "$TEST_TMP/in_dvm.out")"
[ -z "$(test_pids -x prte | grep -v "^$(cat "$TEST_TMP/dvm.pid")$")" ] || fail "prterun --dvm started a prte of its own"
stop_dvm
mkdir "$TEST_TMP/private"
run report "$PRTERUN" --report-pid - --tmpdir "$TEST_TMP/private" -n 1 sh -c 'echo "tmp=$TMPDIR"'
expect_status report 0
grep -qE '^[0-9]+$' "$TEST_TMP/report.out" && pass "prterun --report-pid - printed the DVM's pid" ||
    fail "prterun --report-pid -: $(cat "$TEST_TMP/report.out")"
expect_line report out "tmp=$TEST_TMP/private/prterun."

# --- prte_info --------------------------------------------------------------------------------
run info "$PRTE_INFO" --parsable --arch --path bindir --show-version prte:major
expect_status info 0
expect_line info out "config:arch:"
expect_line info out "path:bindir:/"
expect_line info out "version:prte:"
run info_bad "$PRTE_INFO" --path nowhere
expect_status info_bad 2
expect_line info_bad err "--path nowhere: expected prefix"

finish
