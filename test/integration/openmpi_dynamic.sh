#!/bin/sh
# Issue 13 item 4: Open MPI 4.1's dynamic processes across nodes on 3 local nodes (rml_radix 2):
# MPI_Comm_spawn of children that land on other nodes than their parents' ranks, and
# MPI_Comm_accept/connect between two jobs. Both rest on PMIx_Publish/Lookup (the master's store,
# src/pmix/publish.cc) and PMIx_Connect across nodes (grpcomm). Skips without mpicc.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
if [ ! -x "$CLIENTS/mpi_spawn" ] || [ ! -x "$CLIENTS/mpi_connect" ]; then
    echo "SKIP: test/clients/mpi_spawn was not built (mpicc not found: apt-get install libopenmpi-dev)"
    exit 77
fi

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5

# 2 parents (node1, node2) spawn 2 children; an allreduce over all 4 through the merged intercomm.
run spawn timeout 120 "$PRUN" -n 2 --map-by node:OVERSUBSCRIBE "$CLIENTS/mpi_spawn"
expect_status spawn 0
expect_line spawn out "mpi spawn ok parents 2 children 2"
if grep -q "connect of .*@1:0,.*@2:" "$TEST_TMP/prte.err"; then pass "parents and children connected through PMIx_Connect"
else fail "no PMIx_Connect of parents and children in the log"; fi

# Issue 44 item 5: 2 parents fill node1 and spawn 4 children, 2 on node2 and 2 on node3, so each of
# those nodes has children of local ranks 0 and 1. Open MPI's spawn hands the children their parent's
# OMPI_* environment; had the parent node's shared-memory directory (a per-daemon launch fact) won
# over each child's own, the children of both nodes would share one directory and segment names,
# map each other's segments and crash or hang in MPI_Init (every run did before the fix).
run spawn4 timeout 120 "$PRUN" -n 2 --host node1:2 "$CLIENTS/mpi_spawn" 4
expect_status spawn4 0
expect_line spawn4 out "mpi spawn ok parents 2 children 4"
[ "$(grep -c '^mpi child rank [0-9] of 4 host node2 total 6$' "$TEST_TMP/spawn4.out")" = 2 ] &&
    [ "$(grep -c '^mpi child rank [0-9] of 4 host node3 total 6$' "$TEST_TMP/spawn4.out")" = 2 ] &&
    pass "2 children on node2 and 2 on node3 reached the allreduce with their parents" ||
    fail "children not 2 and 2 on node2 and node3 with total 6: $(grep '^mpi child' "$TEST_TMP/spawn4.out")"

# Two jobs of 2 ranks each meet through a port: the acceptor publishes it, the connector looks it up.
"$PRUN" -n 2 --map-by node:OVERSUBSCRIBE "$CLIENTS/mpi_connect" accept "$TEST_TMP/port" \
    >"$TEST_TMP/accept.out" 2>"$TEST_TMP/accept.err" &
acceptor=$!
run connect timeout 120 "$PRUN" -n 2 --map-by node:OVERSUBSCRIBE "$CLIENTS/mpi_connect" connect "$TEST_TMP/port"
wait "$acceptor"
accept_status=$?
expect_status connect 0
expect_line connect out "mpi connect ok total 4"
[ $accept_status = 0 ] && grep -q "mpi accept ok total 4" "$TEST_TMP/accept.out" && pass "the acceptor job saw 4 processes" ||
    fail "acceptor exited $accept_status: $(cat "$TEST_TMP/accept.out" "$TEST_TMP/accept.err")"

# The port went through the master's store, and what the jobs published went with them.
grep -q "^\[vm[^]]*\] pmix_server: .* publishes .*:accept" "$TEST_TMP/prte.err" &&
    pass "the port went through the master's store" || fail "no publish on the master in the log"
stop_dvm
last=$(grep "^\[vm[^]]*\] pmix_server: job .* ended: the store holds" "$TEST_TMP/prte.err" | tail -1)
echo "$last" | grep -q "holds 0 published key(s), 0 waiting lookup(s)" && pass "the store is empty after the jobs" ||
    fail "store after the jobs: $last"
finish
