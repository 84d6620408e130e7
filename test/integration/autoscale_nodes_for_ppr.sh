#!/bin/sh
# Autoscaling sizes its grows by nodes as well as slots (issue 28): a job run with -N (ppr:N:node)
# needs ceil(np / N) nodes whatever their slots. On node1 (2 slots) with a pool of three 2-slot
# hosts: `-N 1 -n 2` fits node1's slots but not its one node, so the DVM borrows one node and the
# job runs on node1 and spare1; `-N 1 -n 5` needs 5 nodes, more than node1 and the whole pool, so
# it is refused at once, naming the cap.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

start_autoscale_dvm 'spare1 slots=2\nspare2 slots=2\nspare3 slots=2\n'

run pernode timeout -k 5 60 "$PRUN" -N 1 -n 2 sh -c "$NODE_OF_RANK"
expect_status pernode 0
[ "$(sort "$TEST_TMP/pernode.out" | tr '\n' ' ')" = "node1 spare1 " ] && pass "the -N 1 job ran one rank on node1 and one on spare1" ||
    fail "the -N 1 job: $(cat "$TEST_TMP/pernode.out" "$TEST_TMP/pernode.err")"
grep -q "autoscale: growing by 1 node(s) (alloc-1) for job(s) [^ ]*: they need 2 slot(s), 2 free, 0 coming; 1 more node(s) for -N/ppr" \
    "$TEST_TMP/prte.err" && pass "one node asked for, for the -N job's missing node" ||
    fail "the grow: $(grep 'autoscale:' "$TEST_TMP/prte.err")"

run toomany "$PRUN" -N 1 -n 5 hostname
expect_status toomany 1
expect_line toomany err "needs 5 node(s) and cannot wait for them: even with the 3 node(s) its lender can lend borrowed the DVM would have 4 node(s)"
stop_fg_dvm
finish
