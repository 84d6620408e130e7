#!/bin/sh
# Slurm changing the allocation by itself (root, real slurmctld and slurmd), in elastic mode: a
# companion job cancelled with scancel and a node drained each take their node out of the DVM as
# an unrequested departure (a message naming the node), the DVM carries on with the rest, and the
# node is Slurm's again.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm psld 198.19.44 16844
slurm_up 4
start_dvm_job 2
start_slurm_dvm --prtemca ras_slurm_watch_interval 1

run grow "$PALLOC" -N 2
expect_status grow 0
expect_line grow out "2 node(s) up: node3, node4"
c3=$(jobs_of_node node3 | awk '{ print $1 }')

# scancel of node3's companion job: its daemon goes with the job's step, and a job running there
# fails with a message naming the node.
"$PRUN" -n 4 --map-by node sleep 60 >"$TEST_TMP/victim.out" 2>"$TEST_TMP/victim.err" &
victim=$!
t=0
until ip netns pids "${PRTE_TESTBED_PREFIX}node3" | xargs -r -I{} cat /proc/{}/comm 2>/dev/null | grep -qx sleep ||
    [ $t -ge 100 ]; do sleep 0.1; t=$((t + 1)); done
scancel "$c3"
wait_for_line "$TEST_TMP/prte.err" "the DVM carries on without node node3" && pass "node3 left the DVM after scancel of job $c3" ||
    fail "no departure of node3 after scancel"
wait_node_state node3 idle && pass "node3 is idle in sinfo" || fail "node3 is $(node_state node3)"
wait "$victim"
status=$?
[ $status -ne 0 ] && grep -q "node3" "$TEST_TMP/victim.err" && pass "the job on node3 failed naming node3 (exit $status)" ||
    { fail "the job on node3: exit $status"; sed 's/^/    /' "$TEST_TMP/victim.err"; }
run after_cancel "$PRUN" -n 3 --map-by node hostname
expect_status after_cancel 0
[ "$(sort "$TEST_TMP/after_cancel.out" | tr '\n' ' ')" = "node1 node2 node4 " ] && pass "the DVM carries on on node1, node2, node4" ||
    fail "the job ran on: $(sort "$TEST_TMP/after_cancel.out" | tr '\n' ' ')"

# node4 drained: ras/slurm sees it and it leaves; its companion job ends, Slurm has it drained.
scontrol update NodeName=node4 State=DRAIN Reason=prte-test
wait_for_line "$TEST_TMP/prte.err" "Slurm has drained or lost node(s) node4; they leave the DVM" &&
    pass "ras/slurm saw node4 drained" || fail "no word of node4 drained"
wait_node_state node4 drained && pass "node4's job ended: drained in sinfo" || fail "node4 is $(node_state node4)"
run after_drain "$PRUN" -n 2 --map-by node hostname
expect_status after_drain 0
[ "$(sort "$TEST_TMP/after_drain.out" | tr '\n' ' ')" = "node1 node2 " ] && pass "the DVM carries on on node1, node2" ||
    fail "the job ran on: $(sort "$TEST_TMP/after_drain.out" | tr '\n' ' ')"
scontrol update NodeName=node4 State=RESUME
stop_fg_dvm
finish
