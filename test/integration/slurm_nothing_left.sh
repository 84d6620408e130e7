#!/bin/sh
# Nothing obtained from Slurm outlives the DVM (root, real slurmctld and slurmd): after pterm, after
# prte is killed with SIGKILL, and after pterm while a grow still waits for Slurm, squeue has no
# companion job and no daemon step left - only the DVM's own job, which is the user's.
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

# pterm while a grow waits for Slurm (every other node taken): prte ends cleanly and the pending
# request is withdrawn.
salloc --no-shell -N 2 -w node3,node4 --exclusive -J other-user >"$TEST_TMP/other.out" 2>&1 || fail "salloc of node3,node4"
start_slurm_dvm --prtemca ras_slurm_grow_timeout 60
"$PALLOC" -N 1 >"$TEST_TMP/waiting.out" 2>&1 &
waiting=$!
t=0
until squeue -h -t PENDING -o %j | grep -q "^prte-$DVM_JOB-grow$" || [ $t -ge 100 ]; do sleep 0.1; t=$((t + 1)); done
[ $t -lt 100 ] && pass "the grow waits for Slurm (a pending companion job)" || fail "no pending companion job: $(squeue_jobs)"
"$PTERM" >/dev/null 2>&1
wait "$DVM_PID"
status=$?
DVM_PID=
[ $status = 0 ] && pass "pterm during a pending grow: prte exits 0" || fail "pterm during a pending grow: prte exited $status"
scancel -n other-user
only_dvm_job && pass "the pending companion job was withdrawn" || fail "left: $(squeue_jobs)"
kill "$waiting" 2>/dev/null
finish
