#!/bin/sh
# The DVM grows and shrinks through Slurm (root, real slurmctld and slurmd): a grow by 1 and by 2
# nodes gets one companion job per node (squeue and the DVM agree on which), jobs run on the new
# nodes; a grown node and an original node released go back to Slurm (idle in sinfo); a release
# spanning a Slurm node and a host of ras/ssh's pool hands each back to its own module only.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslb 198.19.42 16842
slurm_up 5
start_dvm_job 2
echo extra1 >"$TEST_TMP/pool"
# extra1 is no Slurm node: plm/slurm hands it to plm/ssh, whose agent runs it on this machine.
start_slurm_dvm --prtemca ras_ssh_pool "$TEST_TMP/pool" --prtemca plm_ssh_agent "$LOCAL_AGENT"

# companion_of NODE: the id of the companion job holding it (named prte-<DVM job>-grow).
companion_of() { jobs_of_node "$1" | awk -v n="prte-$DVM_JOB-grow" '$2 == n { print $1 }'; }

run grow1 "$PALLOC" -N 1
expect_status grow1 0
expect_line grow1 out "alloc-1: ready; ras slurm; 1 node(s) up: node3"
c3=$(companion_of node3)
[ -n "$c3" ] && pass "node3 is held by companion job $c3" || fail "no companion job holds node3: $(squeue_jobs)"
grep -q "slurm: grow 1 granted as allocation alloc-1: node3 (job $c3)" "$TEST_TMP/prte.err" &&
    pass "the DVM names the same job for node3" || fail "the DVM's view of node3's job differs from squeue's ($c3)"

run grow2 "$PALLOC" -N 2
expect_status grow2 0
expect_line grow2 out "alloc-2: ready; ras slurm; 2 node(s) up: node4, node5"
c4=$(companion_of node4)
c5=$(companion_of node5)
[ -n "$c4" ] && [ -n "$c5" ] && [ "$c4" != "$c5" ] && pass "node4 and node5 each in a companion job of its own ($c4, $c5)" ||
    fail "companion jobs of node4/node5: '$c4' '$c5'"
for n in node3 node4 node5; do
    [ "$(node_state $n)" = allocated ] && pass "$n allocated in sinfo" || fail "$n is $(node_state $n) in sinfo"
done
run spread "$PRUN" -n 5 --map-by node hostname
expect_status spread 0
[ "$(sort "$TEST_TMP/spread.out" | tr '\n' ' ')" = "node1 node2 node3 node4 node5 " ] &&
    pass "a job runs on the grown nodes" || fail "the job ran on: $(sort "$TEST_TMP/spread.out" | tr '\n' ' ')"

# A grown node leaves: its companion job ends, Slurm has it idle; the others stay.
run shrink_grown "$PALLOC" --shrink alloc-2 -w node4
expect_status shrink_grown 0
wait_node_state node4 idle && pass "node4 is idle in sinfo after its release" || fail "node4 is $(node_state node4)"
[ -z "$(squeue -h -j "$c4" -t RUNNING -o %i 2>/dev/null)" ] && pass "node4's companion job $c4 ended" || fail "job $c4 still runs"
[ "$(companion_of node5)" = "$c5" ] && pass "node5 keeps its job" || fail "node5 lost its job $c5"

# An original node leaves: the DVM's own job shrinks to the rest.
run shrink_own "$PALLOC" --shrink alloc-0 -w node2
expect_status shrink_own 0
wait_node_state node2 idle && pass "node2 (an original node) is idle in sinfo after its release" ||
    fail "node2 is $(node_state node2)"
[ "$(squeue -h -j "$DVM_JOB" -o %N)" = node1 ] && pass "the DVM's job $DVM_JOB now holds node1 only" ||
    fail "the DVM's job holds $(squeue -h -j "$DVM_JOB" -o %N)"

# A release spanning ras/slurm's node5 and ras/ssh's extra1: each module takes back its own.
run lend "$PALLOC" -w extra1
expect_status lend 0
expect_line lend out "ras ssh; 1 node(s) up: extra1"
run shrink_span "$PALLOC" --shrink alloc-2 -w node5,extra1
expect_status shrink_span 0
wait_node_state node5 idle && pass "node5 is idle in sinfo" || fail "node5 is $(node_state node5)"
wait_for_line "$TEST_TMP/prte.err" "ssh: 1 host(s) back in the pool: extra1" && pass "ras/ssh took extra1 back" ||
    fail "ras/ssh did not take extra1 back"
grep -q "slurm: giving node extra1" "$TEST_TMP/prte.err" && fail "ras/slurm handled extra1, not its node" ||
    pass "ras/slurm left extra1 alone"

run after "$PRUN" -n 2 --map-by node hostname
expect_status after 0
[ "$(sort "$TEST_TMP/after.out" | tr '\n' ' ')" = "node1 node3 " ] && pass "jobs run on what is left" ||
    fail "the job ran on: $(sort "$TEST_TMP/after.out" | tr '\n' ' ')"
stop_fg_dvm
wait_node_state node3 idle && pass "pterm: node3 went back to Slurm" || fail "node3 is $(node_state node3) after pterm"
[ "$(squeue_jobs | awk '{ print $1 }' | tr '\n' ' ')" = "$DVM_JOB " ] && pass "nothing but the DVM's own job is left" ||
    fail "jobs left: $(squeue_jobs)"
finish
