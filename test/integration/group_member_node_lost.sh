#!/bin/sh
# Issue 13 item 5: a node hosting members dies during a PMIx group construct. 3 local nodes
# (rml_radix 2, elastic mode so that the DVM carries on without the node): ranks 0 and 1 construct,
# rank 2 (node3) never does; once the daemons of node1 and node2 are in the construct's collective,
# node3's daemon is killed. The collective fails on the survivors instead of waiting for node3, the
# job ends with an error (prun does not hang), no collective state is left on any daemon, and the
# next group works.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca prte_elastic_mode 1 --prtemca pmix_server_verbose 5 \
    --prtemca grpcomm_base_verbose 5
node3_daemon=$(daemon_pid 3)

timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id doomed --late-rank 2 \
    >"$TEST_TMP/doomed.out" 2>"$TEST_TMP/doomed.err" &
doomed=$!
if wait_for_line "$TEST_TMP/prte.err" "^\[node1\].*allgather .*group doomed construct.*from this daemon" &&
    wait_for_line "$TEST_TMP/prte.err" "^\[node2\].*allgather .*group doomed construct.*from this daemon"; then
    pass "node1 and node2 are in the construct's collective"
else
    fail "the construct's collective did not start on node1 and node2"
fi
kill -9 "$node3_daemon"
wait "$doomed"
doomed_status=$?
if [ $doomed_status != 0 ] && [ $doomed_status != 124 ]; then pass "the job ended with status $doomed_status, no hang"; else
    fail "the job exited $doomed_status"; sed 's/^/    /' "$TEST_TMP/doomed.out" "$TEST_TMP/doomed.err"; fi
if grep -q "allgather .*group doomed construct.*failed" "$TEST_TMP/prte.err"; then
    pass "the survivors' collective failed"; else fail "no failed collective in the log"; fi
doomed_ns=$(sed -n 's/.*spawns job \(prte-[^ ]*\): .*group$/\1/p' "$TEST_TMP/prte.err" | head -1)
held=$(grep "job $doomed_ns released; still held" "$TEST_TMP/prte.err")
if [ -n "$held" ] && ! echo "$held" | grep -qv ", 0 collective(s),"; then
    pass "no collective left on the surviving daemons"; else fail "collective state after the job: $held"; fi

run next timeout 60 "$PRUN" -n 2 --map-by node "$CLIENTS/group" --id after-loss
expect_status next 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/next.out")" = 2 ] && pass "a group on the remaining nodes works" ||
    fail "after the loss: $(cat "$TEST_TMP/next.out" "$TEST_TMP/next.err")"
finish
