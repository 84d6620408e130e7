#!/bin/sh
# MPICH on 4 namespace nodes (root; skips otherwise): every node its own network namespace, address
# and hostname, so MPICH's shared memory is used only among the ranks PMI_process_mapping puts on
# one node and everything else crosses the bridge; the PMI barriers are allgathers between daemons
# that reach each other only over it. An Allreduce and a point-to-point ring, one rank per node and
# two per node.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
MPICH_HELLO="$PRTE_BUILDDIR/test/clients/mpich_hello"
if [ ! -x "$MPICH_HELLO" ]; then
    echo "SKIP: test/clients/mpich_hello was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

start_netns_nodes_dvm 4 mpn 198.18.17 --prtemca rml_radix 2

run by_node "$PRUN" -n 4 --map-by node --timeout 120 "$MPICH_HELLO"
expect_status by_node 0
expect_line by_node out "mpich ok size 4 sum 6 ring 4"

run two_each "$PRUN" -n 8 --map-by node --timeout 120 "$MPICH_HELLO"
expect_status two_each 0
expect_line two_each out "mpich ok size 8 sum 28 ring 8"

run abort "$PRUN" -n 4 --map-by node --timeout 60 "$MPICH_HELLO" abort
expect_status abort 3
expect_line abort err "called PMI abort with status 3"

stop_dvm
finish
