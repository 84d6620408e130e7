#!/bin/sh
# hwloc_use_topo_file (issue 25): a process takes its node's topology from an hwloc XML file
# instead of discovering it. On the local-node test-bed one daemon pretends to be a 64-core EPYC
# ($PRTE_TESTBED_TOPOLOGIES/node2.xml), another a 1-core machine: their slots come from the files,
# and the whole topology reaches the master in each call home (the master holds three distinct
# topologies: this machine's and the two files'). Given to prte, the parameter reaches every daemon, over the test-bed's own. A missing or
# unreadable file stops prte, or fails the DVM's start naming the daemon, with one line naming the
# file and the parameter.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"
. "$(dirname "$0")/multinode_lib.sh"

TOPOS="$PRTE_SRCDIR/test/topologies"

# --- prte_info shows it, where the core parameters are ---
run info "$PRTE_INFO" --param hwloc all
expect_status info 0
expect_line info out 'parameter "hwloc_use_topo_file"'

# --- prte: a missing file, and a file that is no topology ---
run missing timeout 60 "$PRTE" --prtemca hwloc_use_topo_file "$TEST_TMP/none.xml"
expect_status missing 1
expect_one_line_errors missing
expect_line missing err "hwloc_use_topo_file: cannot read topology file '$TEST_TMP/none.xml': No such file or directory"
echo "not a topology" >"$TEST_TMP/garbage.xml"
run garbage timeout 60 "$PRTE" --prtemca hwloc_use_topo_file "$TEST_TMP/garbage.xml"
expect_status garbage 1
expect_one_line_errors garbage
expect_line garbage err "hwloc_use_topo_file: topology file '$TEST_TMP/garbage.xml' is not an hwloc XML topology"

# --- one daemon of the test-bed pretends to be another machine ---
PRTE_TESTBED_TOPOLOGIES="$TEST_TMP/topologies"
export PRTE_TESTBED_TOPOLOGIES
mkdir -p "$PRTE_TESTBED_TOPOLOGIES"
cp "$TOPOS/epyc-2pack-8numa-64core.xml" "$PRTE_TESTBED_TOPOLOGIES/node2.xml"
cp "$TOPOS/one-core.xml" "$PRTE_TESTBED_TOPOLOGIES/node3.xml"
start_local_nodes_dvm 3 2 --prtemca plm_base_verbose 5
# Processes still run on this machine's CPUs: unbound, since node2's cores 2-63 are not here.
run alloc "$PRUN" --display allocation -n 3 --map-by node --bind-to none hostname
expect_status alloc 0
expect_line alloc out "node2: slots=64 max_slots=0"
expect_line alloc out "node3: slots=1 max_slots=0"
if grep -q "node1: slots=64 " "$TEST_TMP/alloc.out"; then
    fail "node1, which has no topology file, has node2's slots"; sed 's/^/    /' "$TEST_TMP/alloc.out"
else pass "node1 keeps this machine's slots"; fi
# The topologies themselves travelled: the master parsed each daemon's XML and holds three (this
# machine's, node2's and node3's), and node2's counts are those of its file.
expect_line_in_log() {
    if grep -q -- "$1" "$TEST_TMP/prte.err"; then pass "the master's log has '$1'"; else
        fail "the master's log lacks '$1'"; grep "called home" "$TEST_TMP/prte.err" | sed 's/^/    /'; fi
}
expect_line_in_log "daemon 2 on node node2 called home (64 cores, 128 hwthreads, 8 NUMA; [123] distinct topolog"
expect_line_in_log "called home (.*; 3 distinct topologies known): 3/3 reported"
stop_dvm

# --- given to prte, it reaches every daemon (and wins over the test-bed's node2.xml) ---
start_local_nodes_dvm 2 2 --prtemca hwloc_use_topo_file "$TOPOS/smt-2pack-16core.xml"
run forwarded "$PRUN" --display allocation -n 1 --map-by :DONOTLAUNCH true
expect_status forwarded 0
expect_line forwarded out "node1: slots=16 max_slots=0"
expect_line forwarded out "node2: slots=16 max_slots=0"
stop_dvm

# --- a daemon whose file is no topology: the DVM does not start, and says which daemon and why ---
cp "$TEST_TMP/garbage.xml" "$PRTE_TESTBED_TOPOLOGIES/node2.xml"
printf 'node1\nnode2\n' >"$TEST_TMP/hosts2"
run daemon timeout 120 "$PRTE" --hostfile "$TEST_TMP/hosts2" --prtemca plm_ssh_agent "$LOCAL_AGENT" \
    --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo
expect_status daemon 1
expect_line daemon err "prte: error: the DVM cannot start: daemon 2 on node node2 failed to start"
expect_line daemon err "hwloc_use_topo_file: topology file '$PRTE_TESTBED_TOPOLOGIES/node2.xml' is not an hwloc XML topology"

finish
