#!/bin/sh
# A grow through Slurm whose daemon cannot start (root, real slurmctld and slurmd): the grow fails
# naming the node and what srun said, is rolled back, and ras/slurm gives the node back (its
# companion job ends, the node is idle); the next grow works.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslg 198.19.48 16848
slurm_up 4
start_dvm_job 2
# A prted that will not start on node3.
cat >"$TEST_TMP/prted-not-on-node3" <<EOF2
#!/bin/sh
if [ "\$(hostname)" = node3 ]; then echo "this prted does not start on node3" >&2; exit 1; fi
exec "$PRTED" "\$@"
EOF2
chmod +x "$TEST_TMP/prted-not-on-node3"
start_slurm_dvm --prtemca plm_base_prted "$TEST_TMP/prted-not-on-node3"

run bad "$PALLOC" -w node3
expect_status bad 1
expect_line bad out "alloc-1: failed: daemon 3 on node node3 failed to start"
grep -q "daemon 3 on node node3 failed to start: srun .*this prted does not start on node3" "$TEST_TMP/prte.err" &&
    pass "the failure names node3 and what srun said" || fail "no failure naming node3 and srun's output"
wait_node_state node3 idle && pass "node3 went back to Slurm (idle) after the rollback" || fail "node3 is $(node_state node3)"
[ "$(squeue_jobs | awk '{ print $1 }' | tr '\n' ' ')" = "$DVM_JOB " ] && pass "no companion job is left" ||
    fail "jobs left: $(squeue_jobs)"

run good "$PALLOC" -w node4
expect_status good 0
expect_line good out "ras slurm; 1 node(s) up: node4"
run job "$PRUN" -n 3 --map-by node hostname
expect_status job 0
[ "$(sort "$TEST_TMP/job.out" | tr '\n' ' ')" = "node1 node2 node4 " ] && pass "the DVM runs on node1, node2, node4" ||
    fail "the job ran on: $(sort "$TEST_TMP/job.out" | tr '\n' ' ')"
stop_fg_dvm
finish
