#!/bin/sh
# The Slurm test-bed itself (root): `slurm-nodes up 4` gives four idle nodes, each slurmd in its own
# network namespace with its own hostname, address and TmpFS, everything in the state dir (nothing
# in /etc/slurm); `down` leaves no daemon, namespace or state dir behind.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslt 198.19.47 16847
# What is in /etc/slurm and /etc/munge (names, sizes, times), to see that nothing there changes.
etc_state() { find /etc/slurm /etc/munge -printf '%p %s %T@\n' 2>/dev/null | sort | md5sum; }
etc_before=$(etc_state)
slurm_up 4
[ "$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')" = "node1 node2 node3 node4 " ] && pass "4 nodes idle" ||
    fail "sinfo: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
case $SLURM_CONF in "$SLURM_STATE"/*) pass "SLURM_CONF is in the state dir" ;; *) fail "SLURM_CONF is $SLURM_CONF" ;; esac
run hosts srun -N 4 --ntasks-per-node=1 --exclusive sh -c 'echo "$(hostname) $(ip -4 -o addr show dev eth0 | awk "{ print \$4 }")"'
expect_status hosts 0
i=1
while [ $i -le 4 ]; do
    expect_line hosts out "node$i $PRTE_TESTBED_SUBNET.$i/24"
    i=$((i + 1))
done
# Each node's TmpFS is its own: a file made on node1 is not there on node2.
tmpfs=$(sed -n 's/^TmpFS=//p' "$SLURM_CONF")
run mark srun -N 1 -w node1 --exclusive sh -c "echo here >$tmpfs/mark"
expect_status mark 0
run look srun -N 2 -w node1,node2 --ntasks-per-node=1 --exclusive sh -c "echo \$(hostname) \$(cat $tmpfs/mark 2>/dev/null || echo none)"
expect_line look out "node1 here"
expect_line look out "node2 none"
[ "$(etc_state)" = "$etc_before" ] && pass "/etc/slurm and /etc/munge untouched" || fail "/etc/slurm or /etc/munge changed"

pids=$(cat "$SLURM_STATE"/slurmctld.pid "$SLURM_STATE"/munged.pid "$SLURM_STATE"/slurmd.*.pid 2>/dev/null)
run down "$SLURM_NODES" down --dir "$SLURM_STATE"
expect_status down 0
wait_gone $pids && pass "slurmctld, munged and every slurmd are gone" || fail "left running: $pids"
[ -z "$(ip netns list | grep "^${PRTE_TESTBED_PREFIX}")" ] && pass "no namespace left" || fail "namespaces left: $(ip netns list | grep "^${PRTE_TESTBED_PREFIX}")"
[ ! -e "$SLURM_STATE" ] && pass "the state dir is removed" || fail "$SLURM_STATE is still there"
finish
