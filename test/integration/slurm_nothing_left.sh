#!/bin/sh
# Nothing obtained from Slurm outlives the DVM (root, real slurmctld and slurmd): after pterm, and
# after prte is killed with SIGKILL, squeue has no companion job and no daemon step left - only
# the DVM's own job, which is the user's.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm psle 198.19.45 16845
slurm_up 4
start_dvm_job 2

# only_dvm_job: waits (up to 10 s) until squeue has the DVM's job alone, with no step of daemons.
only_dvm_job() {
    t=0
    while [ "$(squeue_jobs | awk '{ print $1 }' | tr '\n' ' ')" != "$DVM_JOB " ] ||
        squeue -h -s -j "$DVM_JOB" -o %j | grep -q '^prted$'; do
        [ $t -ge 100 ] && return 1
        sleep 0.1
        t=$((t + 1))
    done
}

start_slurm_dvm
run grow "$PALLOC" -N 2
expect_status grow 0
[ "$(squeue_jobs | grep -c "prte-$DVM_JOB-grow")" = 2 ] && pass "two companion jobs while the DVM runs" ||
    fail "companion jobs: $(squeue_jobs)"
stop_fg_dvm
only_dvm_job && pass "pterm: only the DVM's own job is left" || fail "left after pterm: $(squeue_jobs); steps: $(squeue -h -s -o '%i %j')"
wait_node_state node3 idle && wait_node_state node4 idle && pass "pterm: node3 and node4 are idle" ||
    fail "after pterm node3 is $(node_state node3), node4 $(node_state node4)"

start_slurm_dvm
run grow_again "$PALLOC" -N 2
expect_status grow_again 0
daemons=$(dvm_daemons)
kill -9 "$DVM_PID"
wait "$DVM_PID" 2>/dev/null
DVM_PID=
only_dvm_job && pass "kill -9 of prte: only the DVM's own job is left" ||
    fail "left after kill -9: $(squeue_jobs); steps: $(squeue -h -s -o '%i %j')"
wait_gone $daemons && pass "kill -9 of prte: its daemons are gone" || fail "daemons left after kill -9: $daemons"
finish
