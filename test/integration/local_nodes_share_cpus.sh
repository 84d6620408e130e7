#!/bin/sh
# Issue 44, item 4: nodes that share one machine's CPUs (the local test-bed's: every daemon reports
# the same host name and boot id when it calls home) are not bound by default, since each node's
# placement would otherwise bind its first rank to the same core 0 of the one machine. Checked by
# the processes' own Cpus_allowed_list, and --report-bindings and --display map say why; --bind-to
# given still binds.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
if [ "$(nproc)" -lt 2 ]; then echo "SKIP: telling shared CPUs apart needs at least 2 (this machine has $(nproc))"; exit 77; fi

start_local_nodes_dvm 2 2 --prtemca prte_set_slots 2
trap 'stop_dvm; rm -rf "$TEST_TMP"' EXIT

show='grep Cpus_allowed_list /proc/self/status'
all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
# cpus_of NAME RANK: the Cpus_allowed_list rank RANK printed (prun --output tag).
cpus_of() { sed -n "s/^\[[0-9]*,$2\]<stdout>: Cpus_allowed_list:[[:space:]]*//p" "$TEST_TMP/$1.out"; }

# --- by default: node1's and node2's first ranks are not bound to the same CPUs ---
run shared "$PRUN" --report-bindings --output tag --map-by node -n 2 sh -c "$show"
expect_status shared 0
c0=$(cpus_of shared 0)
c1=$(cpus_of shared 1)
if [ -n "$c0" ] && [ "$c0" = "$c1" ] && [ "$c0" != "$all" ]; then
    fail "node1's and node2's first ranks are both bound to cpus $c0"
    sed 's/^/    /' "$TEST_TMP/shared.out" "$TEST_TMP/shared.err"
elif [ -z "$c0" ] || [ -z "$c1" ]; then
    fail "the ranks did not print their CPUs"; sed 's/^/    /' "$TEST_TMP/shared.out"
else pass "the two nodes' first ranks are not bound to the same CPUs ($c0 / $c1)"; fi
for r in 0 1; do
    node=node$((r + 1)) other=node$((2 - r))
    expect_line shared err "[$node] Rank $r is not bound: node $node shares its machine's CPUs with node $other (same host name and boot id), so nothing is bound there by default (--bind-to binds anyway)"
done
[ "$(grep -c 'is not bound: ' "$TEST_TMP/shared.err")" = 2 ] && pass "one note per rank" ||
    fail "not one note per rank: $(cat "$TEST_TMP/shared.err")"

# --- the map says the same, at map time ---
run map "$PRUN" --display map --map-by node -n 2 true
expect_status map 0
expect_line map out "Process rank: 0 Local rank: 0 Not bound: node node1 shares its machine's CPUs with node node2"

# --- asked for, binding is done as on any node ---
run asked "$PRUN" --report-bindings --output tag --bind-to core --map-by node -n 2 sh -c "$show"
expect_status asked 0
for r in 0 1; do
    n=$(grep -c "^\[[0-9]*,$r\]<stderr>: \[node$((r + 1))\] Rank $r bound to core " "$TEST_TMP/asked.err")
    [ "$n" = 1 ] && pass "--bind-to core binds rank $r" || { fail "--bind-to core: rank $r lines $n"; sed 's/^/    /' "$TEST_TMP/asked.err"; }
done
c0=$(cpus_of asked 0)
[ -n "$c0" ] && [ "$c0" != "$all" ] && pass "rank 0 runs on the core it was bound to ($c0)" ||
    fail "--bind-to core: rank 0 has cpus '$c0' (all: $all)"

stop_dvm
finish
