#!/bin/sh
# Issue 13 item 1 (the runtime's own events): a process's failure reaches the processes, on any
# node, that registered for it with PMIX_EVENT_AFFECTED_PROC naming it, and only them; and
# `prun --enable-recovery` keeps a job running when one of its processes dies (PRRTE's option).
# 3 local nodes; failwatch jobs (test/clients/failwatch.cc) of 6 ranks, --map-by node, so rank r
# is on node (r mod 3)+1.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
FW="$PRTE_BUILDDIR/test/clients/failwatch"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 2 --prtemca errmgr_base_verbose 1

# ---- recovery: rank 1 (node2) is killed; the job carries on and the others hear of it ----
# Rank 3 (node1, beside rank 0) asked about rank 2 only: it must hear nothing.
run recover timeout 60 "$PRUN" --enable-recovery -n 6 --map-by node:OVERSUBSCRIBE "$FW" --die 1 --not-watching 3:2
ns=$(sed -n 's/.* affected \(.*\):1$/\1/p' "$TEST_TMP/recover.out" | head -1)
heard=$(grep -c "got PROC-ABORTED-BY-SIG affected $ns:1$" "$TEST_TMP/recover.out")
[ -n "$ns" ] && [ "$heard" -eq 4 ] && pass "ranks 0, 2, 4 and 5 (all three nodes) heard of rank 1's SIGKILL, naming it" ||
    fail "$heard of 4 watching ranks heard of rank 1's failure: $(cat "$TEST_TMP/recover.out" "$TEST_TMP/recover.err")"
for r in 0 2 4 5; do
    grep -q "^failwatch rank $r host node$((r % 3 + 1)) got " "$TEST_TMP/recover.out" || fail "rank $r did not report from node$((r % 3 + 1))"
done
expect_line recover out "failwatch rank 3 host node1 not watching got 0"
# The survivors printed after the failure, and their last fence needed all five: the job ran on.
[ "$(status_of recover)" = 137 ] && pass "the job's status is the failure's (137)" ||
    fail "prun --enable-recovery exited $(status_of recover), expected 137"
expect_line recover err "rank 1 of job $ns on node node2 was killed by signal 9"
grep -q "job $ns carries on (recovery enabled)" "$TEST_TMP/prte.err" && pass "prte says the job carries on" ||
    fail "prte does not say the job carries on"

# ---- without recovery: the job ends, and a process of another job that listens hears of it ----
"$PRUN" -n 3 --map-by node:OVERSUBSCRIBE "$FW" --listen >"$TEST_TMP/listen.out" 2>"$TEST_TMP/listen.err" &
listener=$!
wait_for_lines "$TEST_TMP/listen.out" '^failwatch listening' 3 300 "$listener"
run plain timeout 60 "$PRUN" -n 6 --map-by node:OVERSUBSCRIBE "$FW" --die 1
wait "$listener"
listen_status=$?
victim=$(sed -n 's/.*job \([^ ]*\) on node node2 was killed by signal 9.*/\1/p' "$TEST_TMP/plain.err" | head -1)
[ "$(status_of plain)" = 137 ] && [ -n "$victim" ] && pass "without --enable-recovery the job ends with the failure (137)" ||
    fail "the job without recovery exited $(status_of plain): $(cat "$TEST_TMP/plain.err")"
heard=$(grep -c "got PROC-ABORTED-BY-SIG affected $victim:1$" "$TEST_TMP/listen.out")
[ $listen_status -eq 0 ] && [ "$heard" -eq 3 ] && pass "a listening job's 3 ranks (one per node) heard of it" ||
    fail "listening job (exit $listen_status): $heard of 3 heard: $(cat "$TEST_TMP/listen.out" "$TEST_TMP/listen.err")"

# ---- a job that fails to start is not kept alive by --enable-recovery ----
run nostart timeout 60 "$PRUN" --enable-recovery -n 2 /no/such/program
[ "$(status_of nostart)" != 0 ] && pass "a job that cannot start still fails with --enable-recovery" ||
    fail "prun --enable-recovery of a missing program exited 0"

stop_dvm
exit $failures
