#!/bin/sh
# ras/simulator and DONOTLAUNCH (issue 25): a DVM of 4 simulated nodes (PRRTE's names nodeA0..nodeA3,
# topologies from test/topologies, cycled) is ready without a daemon ever being launched for them;
# prun --map-by node:DONOTLAUNCH --display map shows the node of every rank, exits 0 and starts
# nothing, and its slots are released; without DONOTLAUNCH the job is refused before launch with one
# line naming the simulated node; --display allocation lists the simulated nodes with the slots of
# their topologies. The component is selected only when asked for, and its bad settings are
# one-line errors naming the parameter.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

TOPOS="$PRTE_SRCDIR/test/topologies"
SMT="$TOPOS/smt-2pack-16core.xml"     # 16 cores
EPYC="$TOPOS/epyc-2pack-8numa-64core.xml"  # 64 cores

# --- selected only when asked for ---
run info "$PRTE_INFO" --selected --parsable
expect_no_line info out "selected:ras:simulator:"
run info_asked "$PRTE_INFO" --selected --parsable --prtemca ras_simulator_num_nodes 4
expect_line info_asked out "selected:ras:simulator:1000"

# A launch agent that records every call and fails as ssh does: a daemon started for a simulated
# node would show here (and the DVM would not start).
AGENT="$TEST_TMP/agent"
printf '#!/bin/sh\necho "$@" >>"%s/agent.calls"\nexit 255\n' "$TEST_TMP" >"$AGENT"
chmod +x "$AGENT"

start_dvm --prtemca ras_simulator_num_nodes 4 --prtemca ras_simulator_topo_files "$SMT,$EPYC" \
    --prtemca plm_ssh_agent "$AGENT" --prtemca plm_base_verbose 1 --log-file "$TEST_TMP/dvm.log"
if [ -e "$TEST_TMP/agent.calls" ]; then
    fail "a daemon was launched for a simulated node: $(cat "$TEST_TMP/agent.calls")"
else
    pass "the DVM is ready and no daemon was launched for its simulated nodes"
fi

# --- DONOTLAUNCH: the map of every rank, exit 0, no process started ---
# Each rank would leave a file behind if it ran.
run map "$PRUN" -n 8 --map-by node:DONOTLAUNCH --display map sh -c ": >'$TEST_TMP/ran.'\$PMIX_RANK"
expect_status map 0
# "rank node" for each rank in the map, in rank order.
placed=$(awk '/^Data for node: / { node = $4 }
    /Process rank: / { r = $0; sub(/.*Process rank: /, "", r); sub(/ .*/, "", r); print r, node }' \
    "$TEST_TMP/map.out" | sort -n | awk '{ printf "%s%s", sep, $2; sep = " " }')
expected="nodeA0 nodeA1 nodeA2 nodeA3 nodeA0 nodeA1 nodeA2 nodeA3"
if [ "$placed" = "$expected" ]; then pass "the map places ranks 0-7 by node: $placed"; else
    fail "the map places ranks 0-7 on '$placed', expected '$expected'"
    sed 's/^/    /' "$TEST_TMP/map.out" "$TEST_TMP/map.err"
fi
ran=$(ls "$TEST_TMP" | grep -c '^ran\.')
[ "$ran" = 0 ] && pass "no process of the DONOTLAUNCH job ran" || fail "$ran process(es) of the DONOTLAUNCH job ran"
# The DVM says why the job ended without a process (plm_base_verbose 1, in its log).
if grep -q "mapped 8 process(es) and ends without starting them: its mapping asked for DONOTLAUNCH" "$TEST_TMP/dvm.log"; then
    pass "the DVM's log says why the job started nothing"
else
    fail "no DONOTLAUNCH line in the DVM's log"
    sed 's/^/    /' "$TEST_TMP/dvm.log"
fi

# --- --display allocation: the simulated nodes, their topologies' cores as slots, none left in use ---
run alloc "$PRUN" --display allocation -n 1 --map-by :DONOTLAUNCH true
expect_status alloc 0
expect_line alloc out "nodeA0: slots=16 max_slots=0 slots_inuse=0 state=UP"
expect_line alloc out "nodeA1: slots=64 max_slots=0 slots_inuse=0 state=UP"
expect_line alloc out "nodeA2: slots=16 max_slots=0 slots_inuse=0 state=UP"
expect_line alloc out "nodeA3: slots=64 max_slots=0 slots_inuse=0 state=UP"

# --- --display topo: the hardware the master holds for each node named (or every node) ---
run topo "$PRUN" --display "topo=nodeA0;nodeA1" -n 1 --map-by :DONOTLAUNCH true
expect_status topo 0
expect_line topo out "TOPOLOGY FOR NODE nodeA0: 2 package(s), 1 NUMA domain(s), 16 core(s), 32 hwthread(s) (simulated)"
expect_line topo out "TOPOLOGY FOR NODE nodeA1: 2 package(s), 8 NUMA domain(s), 64 core(s), 128 hwthread(s) (simulated)"
expect_line topo out "  Package L#1 cpus 64-127"
expect_no_line topo out "NODE nodeA2"
run topo_all "$PRUN" --map-by :DONOTLAUNCH:DISPLAYTOPO -n 1 true
expect_status topo_all 0
n=$(grep -c "^TOPOLOGY FOR NODE nodeA" "$TEST_TMP/topo_all.out")
[ "$n" = 4 ] && pass "DISPLAYTOPO shows all 4 nodes" || fail "DISPLAYTOPO shows $n nodes: $(cat "$TEST_TMP/topo_all.out")"

# --- :physical: bindings by the OS's ids (the SMT node's cores are numbered by the OS too) ---
run physical "$PRUN" -n 2 --host nodeA0 --map-by slot:PE=2:DONOTLAUNCH --display map:physical true
expect_status physical 0
expect_line physical out "Bound: cores P#0-1 (cpus 0-3)"
expect_line physical out "Bound: cores P#2-3 (cpus 4-7)"
run logical "$PRUN" -n 2 --host nodeA0 --map-by slot:PE=2:DONOTLAUNCH --display map true
expect_line logical out "Bound: cores 0-1 (cpus 0-3)"

# --- MPMD: an app with its own --map-by (ppr:2:package on nodeA1) beside the job's (node) ---
run mpmd "$PRUN" -n 4 --map-by node:DONOTLAUNCH --display map true : -n 4 --host nodeA1 --map-by ppr:2:package true
expect_status mpmd 0
expect_line mpmd out "App 1 mapping policy: PPR:2:PACKAGE"
# "rank node binding" for each rank of the map, in rank order.
placed=$(awk '/^Data for node: / { node = $4 }
    /Process rank: / { r = $0; sub(/.*Process rank: /, "", r); sub(/ .*/, "", r); b = $0; sub(/.*Bound: /, "", b);
        sub(/ \(.*/, "", b); print r, node ":" b }' "$TEST_TMP/mpmd.out" | sort -n |
    awk '{ printf "%s%s:%s", sep, $2, $3; sep = " " }')
expected="nodeA0:numa:0 nodeA1:numa:0 nodeA2:numa:0 nodeA3:numa:0 nodeA1:package:0 nodeA1:package:0 nodeA1:package:1 nodeA1:package:1"
if [ "$placed" = "$expected" ]; then pass "each app placed by its own policy: $placed"; else
    fail "MPMD placed '$placed', expected '$expected'"
    sed 's/^/    /' "$TEST_TMP/mpmd.out" "$TEST_TMP/mpmd.err"
fi

# --- without DONOTLAUNCH: refused before launch, one line naming the node ---
run refused "$PRUN" -n 8 --map-by node sh -c ": >'$TEST_TMP/ran.'\$PMIX_RANK"
expect_status refused 1
expect_one_line_errors refused
expect_line refused err "node nodeA0 is simulated (ras/simulator): nothing can run there; add --map-by :DONOTLAUNCH to see the placement"
ran=$(ls "$TEST_TMP" | grep -c '^ran\.')
[ "$ran" = 0 ] && pass "no process of the refused job ran" || fail "$ran process(es) of the refused job ran"
# A job that fits on the simulated nodes still maps after a refusal: nothing was left claimed.
run again "$PRUN" -n 160 --map-by node:DONOTLAUNCH true
expect_status again 0

stop_dvm

# --- bad settings: one line naming the parameter, prte exits 1 ---
run missing timeout 60 "$PRTE" --prtemca ras_simulator_num_nodes 2 --prtemca ras_simulator_topo_files "$TEST_TMP/none.xml"
expect_status missing 1
expect_one_line_errors missing
expect_line missing err "ras_simulator_topo_files: cannot read topology file '$TEST_TMP/none.xml': No such file or directory"
run slots timeout 60 "$PRTE" --prtemca ras_simulator_num_nodes 2 --prtemca ras_simulator_slots 4,4,4
expect_status slots 1
expect_line slots err "ras_simulator_slots gives 3 counts for 2 simulated node(s)"
run hosts timeout 60 "$PRTE" --prtemca ras_simulator_num_nodes 2 --host "$(hostname)"
expect_status hosts 1
expect_line hosts err "it cannot be combined with --host"

finish
