#!/bin/sh
# Issue 26 items 1-2: clients written as others write them behave as under PRRTE.
#  - PMIx_Lookup with PMIX_WAIT as the standard types it (an int: that many keys, 0 = all), issued
#    before the publish: it waits, then returns the values (was: PMIX_ERR_NOT_FOUND at once, the
#    ranks left early and the publisher hung in its fence). PMIX_WAIT 1 of two keys returns once
#    one is there; a lookup without PMIX_WAIT of keys nobody published is PMIX_ERR_NOT_FOUND.
#  - PMIx_Log from a client: a string and a byte object reach the DVM's log and prun's stderr.
#  - Open MPI 4.1's MPI_Abort: its "MPI_ABORT was invoked on rank ..." text (a PMIx_Log byte
#    object) reaches prun's stderr as mpirun shows it, and prun's line gives the status and the
#    reason (was: "called PMIx_Abort: N/A"); the job ends with the abort's status.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
if [ ! -x "$CLIENTS/mpi_abort" ]; then
    echo "SKIP: test/clients/mpi_abort was not built (mpicc not found: apt-get install libopenmpi-dev)"
    exit 77
fi

start_local_nodes_dvm 2 2 --prtemca pmix_server_verbose 5

# PMIX_WAIT: ranks 1 and 2 (on node2 and node1: one lookup relayed by a daemon, one not) wait
# for keys rank 0 publishes only once both lookups are seen waiting on the master.
"$PRUN" -n 3 --map-by node "$CLIENTS/pubwait" "$TEST_TMP/publish-now" >"$TEST_TMP/pubwait.out" 2>"$TEST_TMP/pubwait.err" &
pubwait=$!
wait_for_lines "$TEST_TMP/prte.err" "lookup from .* waits for its keys" 2 300 "$pubwait"
n=$(grep -c "lookup from .* waits for its keys" "$TEST_TMP/prte.err")
[ "$n" -ge 2 ] && pass "lookups with PMIX_WAIT 0 (an int) wait for the publish" ||
    fail "$n lookup(s) waited: $(cat "$TEST_TMP/pubwait.err")"
touch "$TEST_TMP/publish-now"
wait "$pubwait"
status=$?
[ $status = 0 ] && pass "pubwait exits 0" || fail "pubwait exited $status: $(cat "$TEST_TMP/pubwait.err")"
n=$(grep -c "^pubwait rank [0-9] ok" "$TEST_TMP/pubwait.out")
[ "$n" = 3 ] && pass "every rank found what it waited for, and nothing once it was unpublished" ||
    fail "$n of 3 ranks ok: $(cat "$TEST_TMP/pubwait.out" "$TEST_TMP/pubwait.err")"

# PMIx_Log from a client: both entries, on the DVM's log and on prun's stderr.
run logger timeout 60 "$PRUN" -n 2 --map-by node "$CLIENTS/logger"
expect_status logger 0
for r in 0 1; do
    expect_line logger out "logger rank $r ok"
    expect_line logger err "logger rank $r says hello on stderr"
    expect_line logger err "logger rank $r sends a message blob"
    grep -q "log from .*:$r: logger rank $r sends a message blob\$" "$TEST_TMP/prte.err" &&
        pass "the DVM logged rank $r's message blob" || fail "no log line for rank $r's message blob"
done

# Open MPI's MPI_Abort.
run mpi_abort timeout 60 "$PRUN" -n 2 --map-by node "$CLIENTS/mpi_abort"
expect_status mpi_abort 3
expect_line mpi_abort err "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD"
expect_line mpi_abort err "with errorcode 3."
expect_line mpi_abort err "prun: error: rank 1 on node node2 called PMIx_Abort with status 3: MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD"
expect_no_line mpi_abort err "N/A"
grep -q "log from .*:1: MPI_ABORT was invoked on rank 1" "$TEST_TMP/prte.err" &&
    pass "the DVM logged Open MPI's abort message" || fail "the DVM's log lacks Open MPI's abort message"

stop_dvm
finish
