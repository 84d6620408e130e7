#!/bin/sh
# Slurm refusing a grow (root, real slurmctld and slurmd): with no free node, a grow by a number of
# nodes and a grow naming a busy node fail within ras_slurm_grow_timeout with Slurm's reason, and
# nothing changes - no job left pending, the node granted to a partly served grow given back, the
# DVM as it was.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslc 198.19.43 16843
slurm_up 3
start_dvm_job 2
start_slurm_dvm
before=$(squeue_jobs)

# Two nodes asked for, one free: the one granted goes back, the grow fails with Slurm's reason.
run partly "$PALLOC" -N 2
expect_status partly 1
expect_line partly err "Slurm cannot grant 2 node(s) now: "
expect_line partly err "waiting for resources"
wait_node_state node3 idle && pass "node3, granted to the failed grow, is idle again" || fail "node3 is $(node_state node3)"

# A busy node named: refused the same way.
run busy_named "$PALLOC" -w node2
expect_status busy_named 1
expect_line busy_named err "Slurm cannot grant 1 node(s) now: "

# Another user takes the last node; a grow by one is refused.
salloc --no-shell -N 1 -w node3 --exclusive -J other-user >"$TEST_TMP/other.out" 2>&1 || fail "salloc of node3 for another job"
other=$(squeue -h -n other-user -o %i)
run none_free "$PALLOC" -N 1
expect_status none_free 1
expect_line none_free err "Slurm cannot grant 1 node(s) now: "
scancel "$other"

[ "$(squeue_jobs | grep -v other-user)" = "$before" ] && pass "no job of the DVM was left behind" ||
    fail "jobs before: '$before', after: '$(squeue_jobs)'"
run still "$PRUN" -n 2 --map-by node hostname
expect_status still 0
[ "$(sort "$TEST_TMP/still.out" | tr '\n' ' ')" = "node1 node2 " ] && pass "the DVM is as it was" ||
    fail "the job ran on: $(sort "$TEST_TMP/still.out" | tr '\n' ' ')"
stop_fg_dvm
finish
