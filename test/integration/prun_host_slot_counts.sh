#!/bin/sh
# `--host name:N`: N is the most slots the job uses on that node (PRRTE's hosts doc), on a DVM of
# 2 local nodes of 2 slots each. `--host node1:1 -n 2` is refused with mpirun's words, "not enough
# slots", naming the node, unless :OVERSUBSCRIBE is given; `--host node1:2 -n 2` runs both there;
# counts spread a job over its nodes (node1:1,node2:1); a bare name keeps the node's own slots. The
# count caps every mapper: --map-by ppr:2:node on node1:1 is refused too. The DVM's own slot count
# is not changed by it: the next job without a count still has both slots.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 2 2 --prtemca prte_set_slots 2

# expect_refused NAME TEXT: a non-zero exit, one-line messages only, one of them containing TEXT.
expect_refused() {
    actual=$(status_of "$1")
    if [ "$actual" != 0 ]; then pass "$1 exits non-zero ($actual)"; else fail "$1 exited 0"; fi
    expect_one_line_errors "$1"
    expect_line "$1" err "$2"
}

run capped "$PRUN" -n 2 --host node1:1 "$JOBINFO"
expect_refused capped "not enough slots"
expect_line capped err "node1 (1, --host node1:1)"
expect_line capped err "--map-by :OVERSUBSCRIBE"

run room "$PRUN" -n 2 --host node1:2 "$JOBINFO"
expect_placement room "node1 node1"

run over "$PRUN" -n 2 --host node1:1 --map-by :OVERSUBSCRIBE "$JOBINFO"
expect_placement over "node1 node1"

run spread "$PRUN" -n 2 --host node1:1,node2:1 "$JOBINFO"
expect_placement spread "node1 node2"

run bare "$PRUN" -n 2 --host node1 "$JOBINFO"
expect_placement bare "node1 node1"

run ppr "$PRUN" --map-by ppr:2:node --host node1:1 "$JOBINFO"
expect_refused ppr "not enough slots on node node1: --host node1:1 allows 1"

finish
