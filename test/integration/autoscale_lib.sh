# Helpers for the autoscaling tests (sourced after lib.sh, dvm_lib.sh, multinode_lib.sh and
# elastic_lib.sh): a DVM of node1 (2 slots) with autoscaling on and an ssh pool to borrow from.
PSTAT="$PRTE_BUILDDIR/src/tools/pstat/pstat"

# start_autoscale_dvm POOL_LINES [prte options...]: the pool's hostfile is POOL_LINES (printf'd);
# node1 has 2 slots; ras_base_verbose 2 logs every decision of the autoscaler.
start_autoscale_dvm() {
    printf "$1" >"$TEST_TMP/pool"
    shift
    echo "node1 slots=2" >"$TEST_TMP/hosts"
    start_dvm_foreground --hostfile "$TEST_TMP/hosts" --prtemca plm_ssh_agent "$LOCAL_AGENT" \
        --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo --prtemca rml_radix 2 \
        --prtemca prte_elastic_mode 1 --prtemca prte_autoscale 1 --prtemca ras_ssh_pool "$TEST_TMP/pool" \
        --prtemca ras_base_verbose 2 "$@"
}

# grows: how many grows the autoscaler has asked for so far.
grows() { grep -c "autoscale: growing by" "$TEST_TMP/prte.err"; }

# order_of PATTERN: the jobs named by the autoscaler's lines matching PATTERN ("autoscale: job X
# ..."), in log order, one line.
order_of() { sed -n "s/.*autoscale: job \([^ ]*\) $1.*/\1/p" "$TEST_TMP/prte.err" | tr '\n' ' '; }
