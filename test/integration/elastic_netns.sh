#!/bin/sh
# The elastic DVM where the network is real (root): namespace nodes with a real sshd each
# (test/testbed/netns-nodes --sshd), prte's default ssh launch path. The DVM grows onto named nodes
# and onto one lent by the ssh pool (ras_ssh_pool), a job spans them, a node is released (its
# daemon gone from its namespace, nothing but sshd left there), and a node whose link is taken
# down (no FIN: found by TCP keepalive) leaves the DVM while the DVM carries on.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
NETNS_NODES="$PRTE_SRCDIR/test/testbed/netns-nodes"

require_netns pte 198.18.13
if ! command -v /usr/sbin/sshd >/dev/null || ! command -v ssh >/dev/null; then echo "SKIP: sshd or ssh not installed"; exit 77; fi
STATE="$TEST_TMP/testbed"
trap 'stop_dvm; "$NETNS_NODES" down --dir "$STATE" >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
trap 'exit 130' INT TERM

"$NETNS_NODES" up 4 --sshd --dir "$STATE" >"$TEST_TMP/up.out" 2>&1 || { cat "$TEST_TMP/up.out"; fail "netns-nodes up 4 --sshd"; exit 1; }
echo node1 >"$TEST_TMP/first"
echo node4 >"$TEST_TMP/pool"
start_dvm_foreground --hostfile "$TEST_TMP/first" --prtemca plm_ssh_agent "$STATE/ssh-agent" \
    --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include "$PRTE_TESTBED_SUBNET.0/24" --prtemca rml_radix 2 \
    --prtemca prte_elastic_mode 1 --prtemca ras_ssh_pool "$TEST_TMP/pool" --prtemca ras_base_verbose 5
run grow "$PALLOC" -w node2,node3
expect_status grow 0
expect_line grow out "alloc-1: ready; ras hosts; 2 node(s) up: node2, node3"
run lend "$PALLOC" -N 1
expect_status lend 0
expect_line lend out "ras ssh; 1 node(s) up: node4"
run job "$PRUN" -n 4 --map-by node "$PRTE_BUILDDIR/test/clients/putget"
expect_status job 0
expect_line job out "putget ok size 4"

run shrink "$PALLOC" --shrink alloc-1 -w node3
expect_status shrink 0
expect_line shrink out "alloc-1: released; ras hosts; 1 node(s) up: node2"
t=0
while ip netns pids "${PRTE_TESTBED_PREFIX}node3" | xargs -r -n1 -I{} cat /proc/{}/comm 2>/dev/null | grep -qv sshd &&
    [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
n=$(ip netns pids "${PRTE_TESTBED_PREFIX}node3" | xargs -r -I{} cat /proc/{}/comm 2>/dev/null | grep -vc sshd)
[ "$n" = 0 ] && pass "node3's daemon left: nothing but sshd in its namespace" || fail "$n process(es) left on node3"

# node2's link goes down: the DVM carries on without it.
"$NETNS_NODES" link node2 down --dir "$STATE" >/dev/null 2>&1
wait_for_line "$TEST_TMP/prte.err" "the DVM carries on without node node2" ||
    { t=0; while ! grep -q "carries on without node node2" "$TEST_TMP/prte.err" && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done; }
grep -q "the DVM carries on without node node2" "$TEST_TMP/prte.err" && pass "node2, cut off, left the DVM" ||
    fail "no departure of node2 reported"
run after "$PRUN" -n 2 --map-by node "$PRTE_BUILDDIR/test/clients/putget"
expect_status after 0
expect_line after out "putget ok size 2"
stop_dvm
exit $failures
