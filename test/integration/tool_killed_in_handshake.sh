#!/bin/sh
# A tool killed in the middle of its connection handshake leaves the DVM serving (issue 27, the
# fault bench/chaos found: the master died of SIGSEGV inside PMIx 4.2.2 when a palloc was killed
# there, src/pmix/pmix422/tool_answers.c). Without racing the kill: the testing hook
# prte_test_answer_tools_after_hangup answers the first tools only once they have hung up, so the
# answer certainly meets a closed connection, every time. Then tools connect as usual, jobs run,
# and the killed tools' records do not stay. A tool claiming another user's uid is refused (the
# same failed-handshake path: it crashed the master too) and the DVM goes on serving.
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

# A tool of another user: refused, and the master lives on. (PMIx 4.2.2's tool library then waits
# in PMIx_tool_init for ever instead of returning the refusal: the test ends it.)
uri=$(sed -n 's/^uri=//p' "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID")
"$PRTE_BUILDDIR/test/clients/foreign_tool" "$uri" >"$TEST_TMP/foreign.out" 2>&1 &
foreign=$!
wait_for_line "$TEST_TMP/prte.err" "tool .*of user [0-9]* refused: the DVM belongs to user" &&
    pass "the master refuses a tool of another user, saying why" || fail "no refusal line from the master"
grep -q "^connected" "$TEST_TMP/foreign.out" && fail "the tool of another user was let in"
# Its answer has gone out by the time a later tool is served, a job runs: the master has survived it.
run refused_then "$PRUN" -n 1 echo served after a refusal
expect_status refused_then 0
alive "$DVM_PID" && pass "the master survives refusing a tool" ||
    { fail "the master died refusing a tool:"; tail -3 "$TEST_TMP/prte.err" | sed 's/^/    /'; DVM_PID=; finish; }
kill -9 $foreign 2>/dev/null
wait $foreign 2>/dev/null

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
