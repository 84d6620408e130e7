#!/bin/sh
# MPICH across 4 local nodes: one job whose barriers (PMI-1 barrier_in) are GRPCOMM allgathers
# among the daemons, so every rank gets what ranks on other nodes put; PMI_process_mapping tells
# MPICH which peers share its node. An Allreduce and a point-to-point ring, by node (one rank
# each, then two each, cyclic) and by slot (blocks of two); and PMI-2's kvs-fence across nodes.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
MPICH_HELLO="$CLIENTS/mpich_hello"
if [ ! -x "$MPICH_HELLO" ]; then
    echo "SKIP: test/clients/mpich_hello was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

start_local_nodes_dvm 4 2

run by_node "$PRUN" -n 4 --map-by node --timeout 120 "$MPICH_HELLO"
expect_status by_node 0
expect_line by_node out "mpich ok size 4 sum 6 ring 4"
for i in 1 2 3 4; do expect_line by_node out "mpich rank $((i - 1)) of 4 on node$i"; done

run cyclic "$PRUN" -n 8 --map-by node --timeout 120 "$MPICH_HELLO"
expect_status cyclic 0
expect_line cyclic out "mpich ok size 8 sum 28 ring 8"

run blocks "$PRUN" -n 4 --host node1:2,node2:2 --timeout 120 "$MPICH_HELLO"
expect_status blocks 0
expect_line blocks out "mpich ok size 4 sum 6 ring 4"
expect_line blocks out "mpich rank 1 of 4 on node1"
expect_line blocks out "mpich rank 2 of 4 on node2"

run pmi2 "$PRUN" -n 4 --map-by node --timeout 60 "$CLIENTS/pmi_fuzz" pmi2
expect_status pmi2 0
expect_line pmi2 out "pmi2 rank 3 of 4 next=v0;x mapping=(vector,(0,4,1))"

if [ -x "$CLIENTS/pmi2_hello" ]; then
    run pmi2lib "$PRUN" -n 4 --host node1:2,node2:2 --timeout 60 "$CLIENTS/pmi2_hello"
    expect_status pmi2lib 0
    expect_line pmi2lib out "pmi2lib rank 3 of 4 next=v0 node=- mapping=(vector,(0,2,2))"
    expect_line pmi2lib out "pmi2lib rank 1 of 4 next=v2 node=from-rank-0 mapping=(vector,(0,2,2))"
fi

# PMI-1 spawn from a rank on a daemon's node: relayed to the master like a PMIx spawn.
run spawn "$PRUN" -n 1 --host node3 --timeout 60 "$CLIENTS/pmi_fuzz" spawn
expect_status spawn 0
expect_line spawn out "spawn parent 0 rc=0"
expect_line spawn out "spawn child 1 port=port-of-0"

# MPI_Abort on a remote node: its daemon relays the message with the rank's state.
run abort "$PRUN" -n 4 --map-by node --timeout 60 "$MPICH_HELLO" abort
expect_status abort 3
expect_line abort err "on node node2 called PMI abort with status 3"

stop_dvm
finish
