#!/bin/sh
# Conformance item 7: concurrent campaigns of either kind never deadlock a parked job; it is
# admitted once, and only once, every campaign it waits on has completed. A grow onto gate1 (held
# open by its gate) overlaps a shrink of node2 and a second grow onto node4; jobs parked meanwhile
# are admitted exactly once, after the last. Then 40 pruns run on node1 and node4 while node3 is
# released, the shrink held open by a stopped survivor while the last 25 arrive, and every one of
# them succeeds: the fence raised for the shrink parks them (shown), never fails them. (A job with processes on a released node ends, naming it: the release says
# the node is no longer needed; docs/elastic.md.)
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 3 2
gate gate1
run g1 "$PALLOC" --do-not-wait -w gate1
jobs=""
for i in 1 2 3; do
    "$PRUN" -n 1 sh -c "echo ran" >"$TEST_TMP/p$i.out" 2>"$TEST_TMP/p$i.err" &
    jobs="$jobs $!"
done
wait_for_line "$TEST_TMP/prte.err" "@3 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" || fail "the jobs were not parked"
run shrink "$PALLOC" --shrink initial -w node2
expect_status shrink 0
expect_line shrink out "released"
run g2 "$PALLOC" -w node4
expect_status g2 0
expect_line g2 out "ready"
grep -q "@[123] -> PRTE_JOB_STATE_MAP " "$TEST_TMP/prte.err" && fail "a job was admitted before the grow onto gate1 completed" ||
    pass "the other campaigns' completion released no job while gate1's grow was in progress"
open_gate gate1
ok=0
for j in $jobs; do wait "$j" && ok=$((ok + 1)); done
[ $ok -eq 3 ] && pass "all 3 parked jobs ran" || fail "$ok of 3 parked jobs ran"
for i in 1 2 3; do
    [ "$(grep -c ran "$TEST_TMP/p$i.out")" -eq 1 ] || fail "job $i ran $(grep -c ran "$TEST_TMP/p$i.out") times"
    [ "$(grep -c "@$i -> PRTE_JOB_STATE_MAP " "$TEST_TMP/prte.err")" -eq 1 ] || fail "job @$i was mapped more than once"
done
pass "each parked job was admitted exactly once"

# 40 jobs spanning a shrink: none fails because the DVM changes size. gate1's daemon, which no job
# uses, is stopped as the shrink is asked for, so that the campaign stays open while the last 25
# jobs arrive: they meet its fence (parked), and run once gate1 resumes and the shrink completes.
gate_rank=$(sed -n 's/.*plm\/ssh: daemon \([0-9]*\) on gate1.*/\1/p' "$TEST_TMP/prte.err" | head -1)
holder=$(daemon_pid "$gate_rank")
[ -n "$holder" ] || fail "no daemon found for gate1 (rank '$gate_rank')"
parked_before=$(grep -c "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the" "$TEST_TMP/prte.err")
pids=""
for i in $(seq 1 40); do
    "$PRUN" -n 2 --host node1,node4 --map-by node:OVERSUBSCRIBE sh -c "$NODE_OF_RANK" >"$TEST_TMP/s$i.out" 2>"$TEST_TMP/s$i.err" &
    pids="$pids $!"
    if [ "$i" -eq 15 ]; then
        kill -STOP "$holder"
        "$PALLOC" --do-not-wait --shrink initial -w node3 >"$TEST_TMP/mid.out" 2>&1
    fi
done
wait_for_lines "$TEST_TMP/prte.err" "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the" $((parked_before + 1)) 100
met=$(( $(grep -c "PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the" "$TEST_TMP/prte.err") - parked_before ))
[ "$met" -ge 1 ] && pass "$met of the 40 jobs met the shrink's fence (parked)" || fail "none of the 40 jobs met the shrink's fence"
kill -CONT "$holder"
good=0
for p in $pids; do wait "$p" && good=$((good + 1)); done
[ $good -eq 40 ] && pass "all 40 jobs spanning the shrink succeeded" ||
    { fail "$good of 40 jobs succeeded"; cat "$TEST_TMP"/s*.err | sort | uniq -c | head -5; }
grep -qx "initial" "$TEST_TMP/mid.out" && pass "the shrink of node3 was accepted" || fail "palloc --shrink: $(cat "$TEST_TMP/mid.out")"
t=0; while ! "$PALLOC" --status initial | grep -q "initial: released" && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
run status "$PALLOC" --status initial
expect_line status out "initial: released"
wait_for_line "$TEST_TMP/prte.err" "plm: campaign [0-9]* (shrink, initial) complete .* on node3 left" &&
    pass "the shrink of node3 completed" || fail "the shrink of node3 did not complete"
# The DVM's nodes once it completed: node1, node4 and gate1 (node2 and node3 released).
run last "$PRUN" --display allocation -n 3 --map-by node sh -c "$NODE_OF_RANK"
expect_status last 0
allocated=$(sed -n 's/^    \([^ ]*\): slots=.*/\1/p' "$TEST_TMP/last.out" | sort | tr '\n' ' ')
[ "$allocated" = "gate1 node1 node4 " ] && pass "node3 is gone; the DVM is node1, node4 and gate1" ||
    { fail "the DVM's nodes now: $allocated"; sed 's/^/    /' "$TEST_TMP/last.out" "$TEST_TMP/last.err"; }
[ "$(grep -v '^ \|^=' "$TEST_TMP/last.out" | sort | tr '\n' ' ')" = "gate1 node1 node4 " ] && pass "the DVM carries on: a job ran on each" ||
    fail "ranks ran on: $(grep -v '^ \|^=' "$TEST_TMP/last.out" | sort | tr '\n' ' ')"
stop_fg_dvm
exit $failures
