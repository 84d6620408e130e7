#!/bin/sh
# Where a job's processes land, on a DVM of 4 local nodes: --map-by ppr:N:node and ppr:N:core
# (N per node, N per core each node's daemon counted), -n taking the first n in ppr order,
# --map-by seq (rank i on the node of the hostfile's i-th line, or of the --host list's i-th
# entry), prun --hostfile restricting a job to its nodes (a relative path, read by the DVM from
# another directory), --map-by core filling nodes in order; and one-line errors with a non-zero
# exit for a bad ppr, a seq list naming a host the DVM does not have, and a missing hostfile.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

# ranks_on NAME NODE: how many of the run's ranks are on NODE.
ranks_on() { grep -c " host $2 app " "$TEST_TMP/$1.out"; }

# expect_failure NAME TEXT: a non-zero exit, one-line messages only, one of them containing TEXT.
expect_failure() {
    actual=$(status_of "$1")
    if [ "$actual" != 0 ]; then pass "$1 exits non-zero ($actual)"; else fail "$1 exited 0"; fi
    expect_one_line_errors "$1"
    expect_line "$1" err "$2"
}

# Two slots per node, so that by-slot placements do not depend on this machine's core count; the
# daemons' "called home" lines give each node's core count for ppr:1:core.
start_local_nodes_dvm 4 2 --prtemca prte_set_slots 2 --prtemca plm_base_verbose 5

# --- ppr ---
run ppr_node "$PRUN" --map-by ppr:2:node "$JOBINFO"
expect_placement ppr_node "node1 node1 node2 node2 node3 node3 node4 node4"

run ppr_first_n "$PRUN" --map-by ppr:2:node -n 3 "$JOBINFO"
expect_placement ppr_first_n "node1 node1 node2"

run ppr_core "$PRUN" --map-by ppr:1:core "$JOBINFO"
expect_status ppr_core 0
for i in 1 2 3 4; do
    cores=$(sed -n "s/.*daemon [0-9]* on node node$i called home (\([0-9]*\) cores.*/\1/p" "$TEST_TMP/prte.err" | head -1)
    on_node=$(ranks_on ppr_core "node$i")
    if [ -n "$cores" ] && [ "$cores" -gt 0 ] && [ "$on_node" = "$cores" ]; then
        pass "ppr:1:core: $on_node rank(s) on node$i, one per core"
    else
        fail "ppr:1:core: $on_node rank(s) on node$i, whose daemon reported '$cores' cores"
    fi
done

# --- seq: rank i on the i-th line's node, repeats and order kept ---
printf 'node3\nnode1\n# a comment is not a line for seq\nnode3\nnode2\n' >"$TEST_TMP/seq_hosts"
run seq_file "$PRUN" --map-by seq --hostfile "$TEST_TMP/seq_hosts" "$JOBINFO"
expect_placement seq_file "node3 node1 node3 node2"

run seq_first_n "$PRUN" --map-by seq --hostfile "$TEST_TMP/seq_hosts" -n 2 "$JOBINFO"
expect_placement seq_first_n "node3 node1"

run seq_host "$PRUN" --map-by seq --host node4,node2,node4 "$JOBINFO"
expect_placement seq_host "node4 node2 node4"

# --- prun --hostfile restricts the job; a relative path is prun's, not the DVM's ---
mkdir -p "$TEST_TMP/elsewhere"
printf 'node4\nnode2 slots=1\n' >"$TEST_TMP/elsewhere/two_nodes"
run restricted sh -c "cd \"$TEST_TMP/elsewhere\" && exec \"$PRUN\" --hostfile two_nodes --map-by node -n 4 \"$JOBINFO\""
expect_placement restricted "node4 node2 node4 node2"

run restricted_slot "$PRUN" --hostfile "$TEST_TMP/elsewhere/two_nodes" -n 3 "$JOBINFO"
expect_placement restricted_slot "node4 node4 node2"  # the DVM's 2 slots per node: slots=1 is not the pool's

# --- by an object: nodes filled in order, as by slot ---
run by_core "$PRUN" --map-by core -n 3 "$JOBINFO"
expect_placement by_core "node1 node1 node2"

# --- errors: one line, non-zero exit, the DVM unharmed ---
run ppr_zero "$PRUN" --map-by ppr:0:node "$JOBINFO"
expect_failure ppr_zero "ppr:0:node"

run ppr_too_many "$PRUN" --map-by ppr:2:node -n 9 "$JOBINFO"
expect_failure ppr_too_many "-n 9 asks for more processes than the 8 it places on 4 node(s)"

printf 'node1\nnode9\n' >"$TEST_TMP/unknown_hosts"
run seq_unknown "$PRUN" --map-by seq --hostfile "$TEST_TMP/unknown_hosts" "$JOBINFO"
expect_failure seq_unknown "asks for host(s) not in the DVM: node9 (hostfile '$TEST_TMP/unknown_hosts')"

run seq_too_many "$PRUN" --map-by seq --hostfile "$TEST_TMP/seq_hosts" -n 5 "$JOBINFO"
expect_failure seq_too_many "-n 5 asks for more processes than the 4 entries of hostfile"

run no_hostfile "$PRUN" --hostfile "$TEST_TMP/does_not_exist" "$JOBINFO"
expect_failure no_hostfile "cannot read hostfile '$TEST_TMP/does_not_exist': No such file or directory"

run after_errors "$PRUN" --map-by ppr:1:node "$JOBINFO"
expect_placement after_errors "node1 node2 node3 node4"

stop_dvm
finish
