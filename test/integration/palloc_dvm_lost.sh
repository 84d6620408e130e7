#!/bin/sh
# palloc waiting on a grow whose DVM dies meanwhile says so and exits 1, rather than waiting for
# ever inside PMIx's blocking calls. The grow's node is a gate node (test/testbed/local-agent), so
# the request is certainly pending when the master is killed.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 1 2
gate gate1
"$PALLOC" -w gate1 >"$TEST_TMP/grow.out" 2>"$TEST_TMP/grow.err" &
palloc=$!
wait_for_line "$TEST_TMP/grow.out" "alloc-1" || fail "palloc did not print its allocation id"
daemons=$(dvm_daemons)
# The gated launch's agent, waiting at the gate: its daemon starts only once the gate opens.
gated=$(pgrep -f "testbed/local-agent gate1 .*--dvm-nspace prte-[^ ]*-$DVM_PID( |\$)")
kill -9 "$DVM_PID"
wait "$DVM_PID" 2>/dev/null
DVM_PID=
# A hang guard only: palloc hears of the lost connection at once.
t=0
while kill -0 "$palloc" 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
if kill -0 "$palloc" 2>/dev/null; then
    fail "palloc is still waiting 30 s after its DVM died"
    kill -9 "$palloc"
fi
wait "$palloc"
status=$?
[ "$status" -eq 1 ] && pass "palloc exits 1" || fail "palloc exited $status"
grep -q "lost the connection to the DVM before the request completed" "$TEST_TMP/grow.err" &&
    pass "palloc says the DVM went away" || { fail "palloc's message:"; sed 's/^/    /' "$TEST_TMP/grow.err"; }
# Let the gated launch through: that daemon finds no master and ends (its agent with it, once it
# has removed its session directory); the others already have.
open_gate gate1
if wait_gone $daemons $gated; then pass "no daemon left"; else fail "daemons left: $daemons $gated"; kill -9 $daemons $gated 2>/dev/null; fi
finish
