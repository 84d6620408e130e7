#!/bin/sh
# Oversubscribed nodes (issue 44 item 1): a job whose launch puts more processes on a node than it
# has slots, counting every job's processes there, tells its processes so by each route their MPI
# reads: PMIX_NODE_OVERSUBSCRIBED (Open MPI 5, asked with the wildcard rank), and for Open MPI 4.1
# what mpirun sets, OMPI_MCA_mpi_oversubscribe=1, with OMPI_MCA_mpi_yield_when_idle=1; a user's own
# OMPI_MCA_mpi_yield_when_idle (prun -x or --mca) wins and then neither is set. Before, a job was
# told nothing, and its Open MPI ranks busy-polled each other out of the shared cores.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 1 2
slots=$("$PRUN" --display allocation -n 1 true 2>/dev/null | sed -n 's/^    node1: slots=\([0-9]*\).*/\1/p')
[ "${slots:-0}" -ge 1 ] && pass "node1 has $slots slot(s)" || { fail "no slot count for node1"; finish; }
over=$((slots + 1))
ENV_LINE='echo "yield=$OMPI_MCA_mpi_yield_when_idle oversubscribe=$OMPI_MCA_mpi_oversubscribe"'

# told WHAT NAME N [prun options]: the N processes of a job say WHAT (yes/no) about the node.
told() {
    what=$1 name=$2 n=$3
    shift 3
    run "$name" "$PRUN" -n "$n" "$@" "$CLIENTS/jobinfo" oversubscribed
    expect_status "$name" 0
    [ "$(grep -c "^jobinfo rank [0-9]* oversubscribed $what$" "$TEST_TMP/$name.out")" = "$n" ] &&
        pass "$name: all $n processes read PMIX_NODE_OVERSUBSCRIBED $what" ||
        fail "$name: expected $n x '$what': $(cat "$TEST_TMP/$name.out" "$TEST_TMP/$name.err")"
}
# env_is NAME LINE N [prun options]: the N processes' Open MPI variables are LINE.
env_is() {
    name=$1 line=$2 n=$3
    shift 3
    run "$name" "$PRUN" -n "$n" "$@" sh -c "$ENV_LINE"
    expect_status "$name" 0
    [ "$(grep -cx "$line" "$TEST_TMP/$name.out")" = "$n" ] && pass "$name: '$line' at all $n" ||
        fail "$name: expected $n x '$line': $(cat "$TEST_TMP/$name.out" "$TEST_TMP/$name.err")"
}

told no full "$slots"
told yes over "$over" --map-by :OVERSUBSCRIBE
env_is env_full "yield= oversubscribe=" "$slots"
env_is env_over "yield=1 oversubscribe=1" "$over" --map-by :OVERSUBSCRIBE
# The user's choice wins, by -x or by --mca.
env_is user_x "yield=0 oversubscribe=" "$over" --map-by :OVERSUBSCRIBE -x OMPI_MCA_mpi_yield_when_idle=0
env_is user_mca "yield=0 oversubscribe=" "$over" --map-by :OVERSUBSCRIBE --mca mpi_yield_when_idle 0

# Every job's processes count: with all slots but one busy, a job of 1 fits, a job of 2 does not.
if [ "$slots" -ge 2 ]; then
    "$PRUN" -n $((slots - 1)) sh -c "$UNTIL_STOPPED" busy >"$TEST_TMP/busy.out" 2>&1 &
    busy=$!
    wait_for_lines "$TEST_TMP/busy.out" "busy running" $((slots - 1)) 100 "$busy"
    told no fits 1
    told yes beside 2 --map-by :OVERSUBSCRIBE
    env_is env_beside "yield=1 oversubscribe=1" 2 --map-by :OVERSUBSCRIBE
    stop_running busy
    wait "$busy" && pass "the busy job ended well" || fail "the busy job: $(cat "$TEST_TMP/busy.out")"
else
    echo "note: node1 has 1 slot: the check across jobs is left out"
fi

# A real Open MPI program runs oversubscribed.
if [ -x "$CLIENTS/mpi_hello" ]; then
    run ompi "$PRUN" -n "$over" --map-by :OVERSUBSCRIBE "$CLIENTS/mpi_hello"
    expect_status ompi 0
    expect_line ompi out "mpi ok size $over"
else
    echo "note: test/clients/mpi_hello not built (no Open MPI mpicc): its check is left out"
fi
stop_dvm
finish
