#!/bin/sh
# What prun --report-state-on-timeout and --get-stack-traces print when --timeout ends a hung job
# on 4 local nodes (issue 41, item 4): before the job ends (status 110), one line per process with
# its state, node and pid, and each live process's stack, taken by the daemon of its node with gdb
# (prte_stack_trace_debugger) and naming the frame the program hangs in. Then with a debugger that
# is not there (one line per node saying so) and with one that hangs (killed at
# prte_stack_trace_timeout: the job still ends).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

HANG="$PRTE_BUILDDIR/test/clients/hang"
FRAME=hang_in_recognisable_frame

# 1. gdb, on 4 nodes.
if ! command -v gdb >/dev/null 2>&1; then
    echo "SKIP: gdb is not installed (contrib/install-deps.sh installs it)"
    exit 77
fi
start_local_nodes_dvm 4 2
run report timeout 120 "$PRUN" -n 4 --map-by node --timeout 5 --report-state-on-timeout --get-stack-traces "$HANG"
expect_status report 110
expect_line report err "timed out after 5 seconds"
for rank in 0 1 2 3; do
    # What the rank itself said: its pid and node.
    set -- $(sed -n "s/^hang rank $rank pid \([0-9]*\) node \(.*\)$/\1 \2/p" "$TEST_TMP/report.out")
    pid=$1 node=$2
    if [ -z "$pid" ]; then fail "rank $rank never said it was running"; continue; fi
    grep -q "^prte: job [^ ]* rank $rank: node $node, pid $pid, state RUNNING$" "$TEST_TMP/report.err" &&
        pass "rank $rank's state line names node $node and pid $pid" ||
        fail "no state line 'rank $rank: node $node, pid $pid, state RUNNING'"
    # Its stack: the header, then gdb's frames up to the next header, one of them the hang.
    sed -n "/^prte: stack trace of job [^ ]* rank $rank (pid $pid) on node $node:\$/,/^prte: /p" "$TEST_TMP/report.err" |
        grep -q "^#[0-9].* $FRAME " && pass "rank $rank's stack, from node $node, shows $FRAME" ||
        fail "no stack of rank $rank (pid $pid) on node $node showing $FRAME"
done
[ "$(grep -c '^prte: job [^ ]* rank [0-9]*: node' "$TEST_TMP/report.err")" = 4 ] &&
    pass "one state line per process" || fail "not one state line per process"
# The report went to the master's log too.
grep -q "^prte: stack trace of job .* rank 0 " "$TEST_TMP/prte.err" && pass "the master's log has the report" ||
    fail "the master's log lacks the report"
[ -n "$(test_pids -f "$HANG")" ] && fail "hung ranks left running: $(test_pids -f "$HANG")" || pass "no rank left running"
if [ "$failures" -ne 0 ]; then sed 's/^/    /' "$TEST_TMP/report.out" "$TEST_TMP/report.err"; fi
stop_fg_dvm

# 2. No such debugger: one line per node, and the job still ends with the timeout's status.
start_local_nodes_dvm 2 2 --prtemca prte_stack_trace_debugger prte-no-such-gdb
run nogdb timeout 60 "$PRUN" -n 2 --map-by node --timeout 2 --get-stack-traces "$HANG"
expect_status nogdb 110
for node in node1 node2; do
    n=$(grep -c "^prte: no stack traces on node $node: the debugger 'prte-no-such-gdb' was not found" "$TEST_TMP/nogdb.err")
    [ "$n" = 1 ] && pass "$node says once that its debugger was not found" ||
        { fail "$node said $n times that its debugger was not found"; sed 's/^/    /' "$TEST_TMP/nogdb.err"; }
done
expect_no_line nogdb err "stack trace of job"
stop_fg_dvm

# 3. A debugger that never ends is killed at prte_stack_trace_timeout, and the job ends anyway.
printf '#!/bin/sh\nexec sleep 600\n' >"$TEST_TMP/hung-gdb"
chmod +x "$TEST_TMP/hung-gdb"
start_local_nodes_dvm 1 2 --prtemca prte_stack_trace_debugger "$TEST_TMP/hung-gdb" --prtemca prte_stack_trace_timeout 1
run hung timeout 60 "$PRUN" -n 1 --timeout 1 --get-stack-traces "$HANG"
expect_status hung 110
expect_line hung err "did not finish within 1 s (prte_stack_trace_timeout) and was killed"
[ -z "$(test_pids -f 'sleep 600')" ] && pass "the hung debugger was killed" || fail "the hung debugger was left running"
stop_fg_dvm
finish
