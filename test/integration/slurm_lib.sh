# Helpers for the Slurm tests (sourced after lib.sh, dvm_lib.sh, multinode_lib.sh and
# elastic_lib.sh): a real Slurm cluster of namespace nodes (test/testbed/slurm-nodes), a Slurm job
# for the DVM held the way salloc's shell holds one, and prte started where that shell runs.
SLURM_NODES="$PRTE_SRCDIR/test/testbed/slurm-nodes"
SLURM_STATE="$TEST_TMP/slurm"
DVM_JOB_SALLOC=

# require_slurm PREFIX SUBNET PORT: root, Slurm's and munge's programs, a build with the Slurm
# components and usable namespaces; otherwise the test is skipped (exit 77) saying why. Each test
# its own prefix, subnet and slurmctld port.
require_slurm() {
    if [ "$(id -u)" -ne 0 ]; then echo "SKIP: the Slurm test-bed needs root"; exit 77; fi
    for tool in slurmctld slurmd munged salloc srun scontrol sinfo squeue scancel; do
        command -v "$tool" >/dev/null ||
            { echo "SKIP: '$tool' not installed (contrib/install-deps.sh installs Slurm and munge)"; exit 77; }
    done
    if ! "$PRTE_INFO" --version --parsable | grep -qx 'config:slurm:yes'; then
        echo "SKIP: prte was built without the Slurm components (libslurm-dev not found at configure time)"
        exit 77
    fi
    require_netns "$1" "$2"
    PRTE_SLURM_PORT=$3
    export PRTE_SLURM_PORT
}

# slurm_up N: the cluster (node1..N, idle), and SLURM_CONF pointing at it.
slurm_up() {
    if ! "$SLURM_NODES" up "$1" --dir "$SLURM_STATE" >"$TEST_TMP/slurm-up.out" 2>&1; then
        sed 's/^/    /' "$TEST_TMP/slurm-up.out"
        fail "slurm-nodes up $1"
        exit 1
    fi
    . "$SLURM_STATE/env"
}

slurm_down() { [ -d "$SLURM_STATE" ] && "$SLURM_NODES" down --dir "$SLURM_STATE" >/dev/null 2>&1; }

# start_dvm_job N: a Slurm job of N whole nodes for the DVM, held as salloc's shell holds one (until
# end_dvm_job), and this shell given that job's SLURM_* variables, as salloc's shell has them.
start_dvm_job() {
    mkfifo "$TEST_TMP/dvm-job.in"
    salloc -N "$1" --exclusive -J prte-test-dvm \
        sh -c 'env | grep "^SLURM_" >"$0.tmp" && mv "$0.tmp" "$0"; exec cat >/dev/null' "$TEST_TMP/dvm-job.env" \
        <"$TEST_TMP/dvm-job.in" >"$TEST_TMP/dvm-job.out" 2>&1 &
    DVM_JOB_SALLOC=$!
    exec 8>"$TEST_TMP/dvm-job.in"
    t=0
    while [ ! -s "$TEST_TMP/dvm-job.env" ]; do
        if [ $t -ge 200 ] || ! kill -0 "$DVM_JOB_SALLOC" 2>/dev/null; then
            sed 's/^/    /' "$TEST_TMP/dvm-job.out"
            fail "salloc -N $1 did not grant the DVM's job"
            exit 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
    while IFS= read -r line; do export "${line?}"; done <"$TEST_TMP/dvm-job.env"
    DVM_JOB=$SLURM_JOB_ID
}

end_dvm_job() {
    [ -n "$DVM_JOB_SALLOC" ] || return 0
    exec 8>&-
    wait "$DVM_JOB_SALLOC" 2>/dev/null
    DVM_JOB_SALLOC=
}

# start_slurm_dvm [prte options...]: the elastic DVM inside the job, on the test-bed's network.
start_slurm_dvm() {
    start_dvm_foreground --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include "$PRTE_TESTBED_SUBNET.0/24" \
        --prtemca prte_elastic_mode 1 --prtemca ras_base_verbose 5 --prtemca plm_base_verbose 5 \
        --prtemca ras_slurm_grow_timeout 2 "$@"
}

slurm_cleanup() {
    stop_dvm
    end_dvm_job
    slurm_down
    rm -rf "$TEST_TMP"
}

# node_state NODE: its state in sinfo (idle, allocated, ...).
node_state() { sinfo -h -N -n "$1" -o %T | head -1; }

# wait_node_state NODE STATE: waits (up to 10 s) for sinfo to show it; false otherwise.
wait_node_state() {
    t=0
    while [ "$(node_state "$1")" != "$2" ]; do
        [ $t -ge 100 ] && return 1
        sleep 0.1
        t=$((t + 1))
    done
}

# jobs_of_node NODE: the running jobs holding it, "id name" per line.
jobs_of_node() { squeue -h -w "$1" -t RUNNING,CONFIGURING -o '%i %j'; }

# squeue_jobs: every job Slurm has that is not over, "id name nodes" per line.
squeue_jobs() { squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING -o '%i %j %N' | sort; }

trap 'slurm_cleanup' EXIT INT TERM
