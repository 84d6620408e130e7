#!/bin/sh
# A DVM inside a Slurm job (root, real slurmctld and slurmd): ras/slurm takes the job's nodes and
# plm/slurm starts the daemons with one srun in that job (a step named prted on both nodes); a
# cross-node fence job and an Open MPI program run there. A daemon that cannot start is reported
# with its node and what srun said.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm psla 198.19.41 16841
slurm_up 4
start_dvm_job 2

start_slurm_dvm
grep -q "slurm: job $DVM_JOB gives 2 node(s): node\[1-2\]" "$TEST_TMP/prte.err" && pass "ras/slurm took job $DVM_JOB's two nodes" ||
    fail "ras/slurm did not report the job's nodes"
grep -q "plm/slurm: srun 1 starts 2 daemon(s) in Slurm job $DVM_JOB on node\[1-2\]" "$TEST_TMP/prte.err" &&
    pass "one srun started both daemons" || fail "no srun of both daemons in job $DVM_JOB"
steps=$(squeue -h -s -j "$DVM_JOB" -o '%j %N' | grep '^prted ')
[ "$steps" = "prted node[1-2]" ] && pass "squeue shows the daemons' step on node[1-2]" || fail "daemons' step: '$steps'"
# The master runs outside the job: nothing is mapped onto its node.
run where "$PRUN" -n 4 hostname
expect_status where 0
[ "$(sort "$TEST_TMP/where.out" | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "2node1 2node2 " ] &&
    pass "4 processes on the job's two nodes, 2 each" || fail "processes ran on: $(sort "$TEST_TMP/where.out" | tr '\n' ' ')"
run fence "$PRUN" -n 4 --map-by node "$PRTE_BUILDDIR/test/clients/putget"
expect_status fence 0
expect_line fence out "putget ok size 4"
if [ -x "$PRTE_BUILDDIR/test/clients/mpi_hello" ]; then
    run mpi "$PRUN" -n 4 --map-by node "$PRTE_BUILDDIR/test/clients/mpi_hello"
    expect_status mpi 0
    expect_line mpi out "mpi ok size 4"
else
    echo "note: test/clients/mpi_hello not built (no mpicc): the Open MPI part is left out"
fi
stop_fg_dvm
[ -z "$(squeue -h -s -j "$DVM_JOB" -o %j | grep '^prted$')" ] && pass "the daemons' step ended with the DVM" ||
    fail "the daemons' step outlived the DVM"

# A daemon that cannot start: named with its node and srun's words.
"$PRTE" --prtemca plm_base_prted /nonexistent/prted --prtemca oob_tcp_if_include "$PRTE_TESTBED_SUBNET.0/24" \
    >"$TEST_TMP/bad.out" 2>"$TEST_TMP/bad.err"
[ $? -ne 0 ] && pass "prte with a prted that cannot start fails" || fail "prte with a missing prted succeeded"
grep -q "daemon [12] on node node[12] failed to start: srun .*nonexistent/prted" "$TEST_TMP/bad.err" &&
    pass "the failure names the node and what srun said" || { fail "no failure naming node and srun's output"; sed 's/^/    /' "$TEST_TMP/bad.err"; }
finish
