# Helpers for the elastic DVM's tests (sourced after lib.sh, dvm_lib.sh and multinode_lib.sh).
PALLOC="$PRTE_BUILDDIR/src/tools/palloc/palloc"
ALLOC_CLIENT="$PRTE_BUILDDIR/test/clients/alloc_client"
PROCTABLE="$PRTE_BUILDDIR/test/clients/proctable"
# Gates for the test-bed's gate* nodes (test/testbed/local-agent): `gate NODE` makes one, and the
# node's launch waits until `open_gate NODE`.
PRTE_TESTBED_GATES="$TEST_TMP/gates"
export PRTE_TESTBED_GATES
mkdir -p "$PRTE_TESTBED_GATES"
gate() { mkfifo "$PRTE_TESTBED_GATES/$1"; }
open_gate() { echo open >"$PRTE_TESTBED_GATES/$1"; }

# start_elastic_dvm N RADIX [prte options...]: an elastic DVM of the master and node1..N, with the
# campaign, state and repair logs the checks read.
start_elastic_dvm() {
    n=$1
    radix=$2
    shift 2
    start_local_nodes_dvm "$n" "$radix" --prtemca prte_elastic_mode 1 --prtemca ras_base_verbose 5 \
        --prtemca plm_base_verbose 5 --prtemca state_base_verbose 5 --prtemca rml_base_verbose 5 "$@"
}

# start_push_dvm N RADIX: an elastic DVM (pmix_server_verbose 2, for EVENT_LINE) whose resource
# manager can push nodes onto it: the test component ras/pushtest grows the DVM onto each node
# name written to $TEST_TMP/push (a fifo).
start_push_dvm() {
    mkfifo "$TEST_TMP/push"
    start_elastic_dvm "$1" "$2" --prtemca pmix_server_verbose 2 --prtemca ras_pushtest_fifo "$TEST_TMP/push" \
        --prtemca mca_base_component_path "$PRTE_BUILDDIR/.libs:$PRTE_BUILDDIR/test/components/push/.libs"
}

# The DVM's URI, for the test clients that connect as tools.
dvm_uri() { sed -n 's/^uri=//p' "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID"; }

# stop_fg_dvm: pterm the foreground DVM; fails if it or a daemon is left.
stop_fg_dvm() {
    daemons=$(dvm_daemons)
    "$PTERM" >/dev/null 2>&1
    if wait_gone "$DVM_PID" && wait_gone $daemons; then pass "pterm: the DVM and its daemons are gone"; else
        fail "left running after pterm: $DVM_PID $daemons"; kill -9 "$DVM_PID" $daemons 2>/dev/null; fi
    DVM_PID=
}

# node_names: the node each rank of a job ran on, sorted (each rank prints its daemon's node name).
NODE_OF_RANK='echo $PRTE_MCA_prte_node_name'

# master_repairs: how many routing-tree repairs the master has made so far.
master_repairs() { grep -c "^\[[^]]*:$DVM_PID\] rml: rml: repair" "$TEST_TMP/prte.err"; }

# EVENT_LINE: what the DVM logs (pmix_server_verbose 2) for each completion event it raises, or in
# a build without the codes would raise: "allocation ID: PMIX_DVM_IS_READY to ..." (or
# PMIX_ERR_DVM_MOD), "allocation ID complete|failed: no completion event ...". One per outcome.
EVENT_LINE='pmix_server: allocation [^ ]*\(: PMIX_DVM_IS_READY to\|: PMIX_ERR_DVM_MOD to\| complete: no completion event\| failed: no completion event\)'

# events_build: true when this build raises the completion events (a PMIx that defines the codes).
events_build() { "$PRTE_INFO" --version --parsable | grep -qx 'config:dvm_completion_events:yes'; }
