#!/bin/sh
# Spec case (issue 27, 1): a shrink held open while jobs arrive. On 4 local nodes (radix 2:
# 0: 1,2  1: 3,4), a surviving daemon (node2) is stopped with SIGSTOP, so the shrink of node4
# cannot complete its collective; jobs submitted meanwhile park (PRTE_JOB_STATE_WAITING_FOR_DAEMONS)
# instead of failing or mapping onto the leaving node; once node2 resumes, the shrink completes
# and every parked job runs, none of its ranks on node4.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 4 2
held=$(daemon_pid 2)
leaving=$(daemon_pid 4)
kill -STOP "$held"
"$PALLOC" --shrink initial -w node4 >"$TEST_TMP/shrink.out" 2>"$TEST_TMP/shrink.err" &
shrink_pid=$!
wait_for_line "$TEST_TMP/prte.err" "campaign 1 (shrink" || fail "no shrink campaign started"

# Two jobs arrive while the campaign is open: each would use node4 if it could (one rank a node).
for j in a b; do
    "$PRUN" -n 4 --map-by node:OVERSUBSCRIBE sh -c "$NODE_OF_RANK" >"$TEST_TMP/$j.out" 2>"$TEST_TMP/$j.err" &
    eval "prun_$j=\$!"
done
wait_for_lines "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS" 2 300
[ "$(grep -c "PRTE_JOB_STATE_WAITING_FOR_DAEMONS" "$TEST_TMP/prte.err")" -ge 2 ] &&
    pass "both jobs parked while the shrink is held open" || fail "the jobs were not parked: $(grep 'JOB_STATE' "$TEST_TMP/prte.err" | tail -5)"
alive "$prun_a" && alive "$prun_b" && pass "neither parked job failed" || fail "a parked job ended early"
[ -s "$TEST_TMP/a.out" ] || [ -s "$TEST_TMP/b.out" ] && fail "a job ran while the shrink was open" ||
    pass "no rank ran while the shrink was open"
alive "$shrink_pid" && pass "the shrink is held open by the stopped survivor" || fail "the shrink completed with node2 stopped"

kill -CONT "$held"
wait "$shrink_pid" && pass "the shrink completed once node2 resumed" || fail "the shrink failed: $(cat "$TEST_TMP/shrink.err")"
expect_file_line() { grep -q "$2" "$1" && pass "$3" || fail "$3: $(cat "$1")"; }
expect_file_line "$TEST_TMP/shrink.out" "released" "palloc reports the release"
wait_gone "$leaving" && pass "node4's daemon left" || fail "node4's daemon is still running"
for j in a b; do
    eval "wait \$prun_$j"
    s=$?
    [ "$s" = 0 ] && pass "job $j ran once the shrink completed" || fail "job $j exited $s: $(cat "$TEST_TMP/$j.err")"
    grep -q node4 "$TEST_TMP/$j.out" && fail "job $j ran a rank on the departed node4: $(tr '\n' ' ' <"$TEST_TMP/$j.out")" ||
        pass "job $j ran nothing on node4 ($(sort "$TEST_TMP/$j.out" | tr '\n' ' '))"
    [ "$(wc -l <"$TEST_TMP/$j.out")" -eq 4 ] || fail "job $j ran $(wc -l <"$TEST_TMP/$j.out") ranks, not 4"
done
stop_fg_dvm
exit $failures
