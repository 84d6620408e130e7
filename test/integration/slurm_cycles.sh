#!/bin/sh
# Ten grow/shrink cycles in a row through Slurm 22.05 without slurmdbd (root, real slurmctld and
# slurmd): each grow gets a node in a new companion job, a job runs there, each release ends that
# job and the node is idle again. (A job resized in place would fail from the second cycle on.)
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslf 198.19.46 16846
slurm_up 4
start_dvm_job 2
start_slurm_dvm

cycle=1
good=0
while [ $cycle -le 10 ]; do
    ok=1
    run grow "$PALLOC" -N 1
    node=$(sed -n 's/.*ras slurm; 1 node(s) up: \([a-z0-9]*\).*/\1/p' "$TEST_TMP/grow.out")
    alloc=$(sed -n 's/^\(alloc-[0-9]*\): ready.*/\1/p' "$TEST_TMP/grow.out")
    if [ "$(status_of grow)" != 0 ] || [ -z "$node" ]; then
        fail "cycle $cycle: grow failed: $(cat "$TEST_TMP/grow.err" "$TEST_TMP/grow.out")"
        break
    fi
    run job "$PRUN" -n 3 --map-by node hostname
    grep -qx "$node" "$TEST_TMP/job.out" || { ok=; fail "cycle $cycle: no process on $node: $(cat "$TEST_TMP/job.out" "$TEST_TMP/job.err")"; }
    run shrink "$PALLOC" --shrink "$alloc" -w "$node"
    [ "$(status_of shrink)" = 0 ] || { ok=; fail "cycle $cycle: release of $node failed: $(cat "$TEST_TMP/shrink.err")"; }
    wait_node_state "$node" idle || { ok=; fail "cycle $cycle: $node is $(node_state "$node") after its release"; }
    [ -n "$ok" ] && good=$((good + 1))
    cycle=$((cycle + 1))
done
[ $good = 10 ] && pass "10 grow/shrink cycles through Slurm" || fail "$good of 10 cycles went through"
[ "$(squeue_jobs | awk '{ print $1 }' | tr '\n' ' ')" = "$DVM_JOB " ] && pass "no companion job is left" ||
    fail "jobs left: $(squeue_jobs)"
stop_fg_dvm
finish
