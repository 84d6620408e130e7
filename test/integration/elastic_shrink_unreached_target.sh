#!/bin/sh
# A shrink target the order never reaches still goes (found by bench/chaos, seed 1000 step 4: a
# link cut under an inner daemon while its child was released). rml_radix 2 over 4 nodes (0 over 1
# and 2, 1 over 3 and 4): daemon 1 is stopped (SIGSTOP), then node3, its child, is released. The
# order cannot pass daemon 1; the campaign completes once daemon 1 is declared lost
# (prte_daemon_heartbeat_timeout 6: palloc must have sent the order before then, which a loaded
# machine once took more than 2 s to do), and node3's daemon, which never had the order, must still end
# - before the fix it re-parented onto the master once daemon 1 was gone and ran on for ever, its
# call-home connection open, outside the DVM. The master closes that connection
# prte_elastic_leave_timeout + prte_daemon_exit_timeout after the completion, saying so in one line.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

stopped=
trap 'kill -CONT $stopped 2>/dev/null; stop_dvm; rm -rf "$TEST_TMP"' EXIT

start_elastic_dvm 4 2 --prtemca prte_daemon_heartbeat_timeout 6 --prtemca prte_daemon_exit_timeout 2
target=$(daemon_pid 3)
[ -n "$target" ] || fail "no daemon 3"
stopped=$(daemon_pid 1)
kill -STOP "$stopped"
run shrink timeout -k 5 60 "$PALLOC" --shrink initial -w node3
expect_status shrink 0
expect_line shrink out "initial: released"
grep -q "daemon 1 on node node1 sent nothing for .* it is declared lost" "$TEST_TMP/prte.err" &&
    pass "the stopped daemon 1 was declared lost" || fail "daemon 1 was not declared lost"
grep -q "^\[node3\].*named by a shrink" "$TEST_TMP/prte.err" && fail "node3 had the order (the test did not hold it)" ||
    pass "the order never reached node3"
# The order never reaches it: within the leave and exit timeouts (2 s + 2 s) and some slack, its
# daemon must be gone all the same, with daemon 1 still stopped.
t=0
while alive "$target" && [ $t -lt 150 ]; do sleep 0.1; t=$((t + 1)); done
if alive "$target"; then fail "node3's daemon (pid $target) runs on 15 s after it left the DVM"; else
    pass "node3's daemon ended, though the order never reached it"; fi
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (shrink): daemon 3 on node3 is still connected .* after it left: the order cannot have reached it" &&
    pass "the master said why it closed daemon 3's connections" || fail "no line about daemon 3's connections"
kill -CONT "$stopped"
wait_gone "$stopped" && pass "daemon 1, continued, ended itself" || fail "daemon 1 runs on after SIGCONT"
stopped=
run after timeout -k 5 30 "$PRUN" -n 2 --map-by node sh -c "$NODE_OF_RANK"
expect_status after 0
[ "$(sort "$TEST_TMP/after.out" | tr '\n' ' ')" = "node2 node4 " ] && pass "jobs run on the survivors node2 and node4" ||
    fail "the job after ran on: $(cat "$TEST_TMP/after.out" "$TEST_TMP/after.err")"
stop_fg_dvm
exit $failures
