#!/bin/sh
# Conformance item 1 (elastic-dvm-spec.txt 8.3.1.10) and item 9's observable state: a job submitted
# while the DVM grows is held, not failed, and is then admitted onto the post-change nodes. The
# grow onto gate1 stays in progress until the test opens the gate (test/testbed/local-agent), so
# the job is certainly submitted during it. While parked, the job is PRTE_JOB_STATE_WAITING_FOR_DAEMONS
# at state_base_verbose 5 and in a PMIx job-status query.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2
gate gate1
run grow "$PALLOC" --do-not-wait -w gate1 --request-id r1
expect_status grow 0
alloc=$(head -1 "$TEST_TMP/grow.out")
[ -n "$alloc" ] && pass "palloc prints the allocation id ($alloc)" || fail "palloc printed no allocation id"
run pending "$PALLOC" --status "$alloc"
expect_line pending out "$alloc: pending"

"$PRUN" -n 3 --map-by node sh -c "$NODE_OF_RANK" >"$TEST_TMP/job.out" 2>"$TEST_TMP/job.err" &
prun_pid=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked at the map boundary" &&
    pass "the job is parked at the map boundary (state_base_verbose 5)" || fail "the job was not parked"
run state "$PROCTABLE" "$(dvm_uri)" --job-state "$(sed -n 's/.*job \([^ ]*@1\) -> PRTE_JOB_STATE_WAITING.*/\1/p' "$TEST_TMP/prte.err" | head -1)"
expect_line state out "job state SUCCESS PRTE_JOB_STATE_WAITING_FOR_DAEMONS"
alive "$prun_pid" && pass "the parked job has not failed" || fail "prun ended while the grow was in progress"

open_gate gate1
wait "$prun_pid"
[ $? -eq 0 ] && pass "the parked job ran once the grow completed" || { fail "the parked job failed"; cat "$TEST_TMP/job.err"; }
[ "$(sort "$TEST_TMP/job.out" | tr '\n' ' ')" = "gate1 node1 node2 " ] &&
    pass "it was admitted onto the grown DVM (one rank on each of node1, node2, gate1)" ||
    fail "ranks ran on: $(sort "$TEST_TMP/job.out" | tr '\n' ' ')"
[ "$(grep -c '@1 -> PRTE_JOB_STATE_MAP ' "$TEST_TMP/prte.err")" -eq 1 ] && pass "the job was mapped once" ||
    fail "the job was mapped $(grep -c '@1 -> PRTE_JOB_STATE_MAP ' "$TEST_TMP/prte.err") times"
run ready "$PALLOC" --status "$alloc"
expect_line ready out "$alloc: ready; ras hosts; 1 node(s) up: gate1"
grep -q "campaign 1 (grow, $alloc) complete in" "$TEST_TMP/prte.err" && pass "the campaign's outcome is logged" ||
    fail "no campaign outcome at ras_base_verbose 5"
stop_fg_dvm
exit $failures
