#!/bin/sh
# A DVM on namespace nodes (root): every daemon in its own network namespace behind a veth and a
# bridge (test/testbed/netns-nodes), so the network itself is real. Jobs across the nodes; a link
# taken down under a running job (the peer vanishes without a FIN: found by TCP keepalive, then
# PRRTE's outcome - the loss reported with its node, the job aborted, the DVM shut down, the cut-off
# daemon exiting on its own); and the default agent path as users run it: real sshd per node.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_netns_nodes_dvm 4 ptd 198.18.7 --prtemca rml_radix 2
run spread "$PRUN" -n 8 --map-by node "$CLIENTS/jobinfo"
expect_status spread 0
for i in 1 2 3 4; do expect_line spread out "host node$i "; done
run putget "$PRUN" -n 8 --map-by node "$CLIENTS/putget"
expect_status putget 0
expect_line putget out "putget ok size 8"

# node4's link goes down under a running job.
"$PRUN" -n 4 --map-by node sleep 120 >"$TEST_TMP/cut.out" 2>"$TEST_TMP/cut.err" &
prun_pid=$!
t=0
# The job's four sleeps, counted in this test-bed's namespaces (other tests run sleeps too).
sleeps_in_nodes() {
    for i in 1 2 3 4; do ip netns pids "${PRTE_TESTBED_PREFIX}node$i"; done |
        while read -r p; do cat "/proc/$p/comm" 2>/dev/null; done | grep -cx sleep
}
while [ "$(sleeps_in_nodes)" -lt 4 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
node4_pids=$(ip netns pids "${PRTE_TESTBED_PREFIX}node4")
"$NETNS_NODES" link node4 down --dir "$STATE" >/dev/null 2>&1
wait "$prun_pid"
status=$?
[ $status -ne 0 ] && pass "the job fails when node4 is cut off ($status)" || fail "prun exited 0"
if grep -q "daemon 4 on node node4" "$TEST_TMP/cut.err"; then pass "prun names daemon 4 on node4"; else
    fail "prun does not name the lost daemon:"; sed 's/^/    /' "$TEST_TMP/cut.err"; fi
if wait_gone "$DVM_PID"; then pass "the DVM shut down"; else fail "the DVM is still running"; fi
DVM_PID=
if wait_gone $node4_pids; then pass "the cut-off daemon and its processes exited"; else
    fail "processes left in node4: $(ip netns pids "${PRTE_TESTBED_PREFIX}node4")"; fi
"$NETNS_NODES" down --dir "$STATE" >/dev/null 2>&1

# Real ssh: one sshd per node, prte's default agent path (ssh, here with the test-bed's config).
if command -v /usr/sbin/sshd >/dev/null && command -v ssh >/dev/null; then
    # Daemons started over ssh get no TMPDIR: their session directories are in /tmp/prte.<uid>.
    user_dir=/tmp/prte.$(id -u)
    had_user_dir=; [ -e "$user_dir" ] && had_user_dir=1
    "$NETNS_NODES" up 2 --sshd --dir "$STATE" >"$TEST_TMP/up2.out" 2>&1 || { cat "$TEST_TMP/up2.out"; fail "up 2 --sshd"; finish; }
    start_dvm_foreground --hostfile "$STATE/hostfile" --prtemca plm_ssh_agent "$STATE/ssh-agent" \
        --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include "$PRTE_TESTBED_SUBNET.0/24"
    run over_ssh "$PRUN" -n 4 --map-by node "$CLIENTS/jobinfo"
    expect_status over_ssh 0
    expect_line over_ssh out "host node1 "
    expect_line over_ssh out "host node2 "
    stop_dvm
    left=$(ip netns pids "${PRTE_TESTBED_PREFIX}node1"; ip netns pids "${PRTE_TESTBED_PREFIX}node2")
    n=$(for p in $left; do cat "/proc/$p/comm" 2>/dev/null; done | grep -vc sshd)
    [ "$n" = 0 ] && pass "nothing but sshd left on the nodes after pterm" || fail "$n process(es) left on the nodes"
    if [ -z "$had_user_dir" ]; then
        [ -e "$user_dir" ] && fail "the daemons left $user_dir behind" || pass "the daemons left no $user_dir behind"
    fi
else
    echo "note: sshd not installed; the real-ssh part was not run"
fi
finish
