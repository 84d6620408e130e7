#!/bin/sh
# A tool killed in the middle of its connection handshake leaves the DVM serving (issue 27, the
# fault bench/chaos found: the master died of SIGSEGV inside PMIx 4.2.2 when a palloc was killed
# there, src/pmix/pmix422/tool_answers.c). Without racing the kill: the testing hook
# prte_test_answer_tools_after_hangup answers the first tools only once they have hung up, so the
# answer certainly meets a closed connection, every time. Then tools connect as usual, jobs run,
# and the killed tools' records do not stay.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

KILLED=3
start_dvm_foreground --prtemca prte_test_answer_tools_after_hangup $KILLED --prtemca pmix_server_verbose 5
i=0
while [ $i -lt $KILLED ]; do
    i=$((i + 1))
    "$PRUN" -n 1 echo "never-$i" >"$TEST_TMP/killed.$i.out" 2>&1 &
    tool=$!
    # The master has the tool's request: its name is chosen, its answer waits for the hang-up.
    wait_for_lines "$TEST_TMP/prte.err" "connected as" $i 100 "$DVM_PID"
    [ "$(grep -c "connected as" "$TEST_TMP/prte.err")" -ge $i ] || fail "tool $i never reached the master"
    kill -9 $tool
    wait $tool 2>/dev/null
    wait_for_lines "$TEST_TMP/prte.err" "hung up before its answer" $i 100 "$DVM_PID"
done
[ "$(grep -c "hung up before its answer (prte_test_answer_tools_after_hangup)" "$TEST_TMP/prte.err")" -eq $KILLED ] &&
    pass "the answers to $KILLED tools went out after they hung up" ||
    { fail "the master did not answer $KILLED hung-up tools:"; grep "tool\|hung" "$TEST_TMP/prte.err" | sed 's/^/    /'; }
grep -q "never-" "$TEST_TMP"/killed.*.out && fail "a killed tool's job ran"
alive "$DVM_PID" && pass "the master survives tools killed in their handshake" ||
    { fail "the master died:"; tail -5 "$TEST_TMP/prte.err" | sed 's/^/    /'; DVM_PID=; finish; }

# The DVM still serves tools and runs jobs, and the next connection releases the killed tools'
# records (PMIx keeps them otherwise: pmix422/repairs.h).
run after "$PRUN" -n 2 echo still serving
expect_status after 0
[ "$(grep -c "still serving" "$TEST_TMP/after.out")" -eq 2 ] && pass "a job runs after the killed tools" ||
    fail "the job after the killed tools printed: $(cat "$TEST_TMP/after.out")"
run again "$PRUN" -n 1 echo once more
expect_status again 0
grep -q "released the PMIx records of [0-9]* departed tool(s); 0 tool(s) still connected" "$TEST_TMP/prte.err" &&
    pass "the killed tools' records were released" ||
    { fail "no release of the departed tools' records:"; grep "released\|departed" "$TEST_TMP/prte.err" | sed 's/^/    /'; }
finish
