#!/bin/sh
# Autoscaling's admission rules (issue 43, items 3 and 4; docs/elastic.md, "Admission"): a job
# that no grow of the DVM's kind of node can help (PE= wider than any node) is refused at once with
# the mapper's reason instead of waiting for ever, and a plain job after it runs; a borrowed node
# left idle goes back on time while a job waits for a grow it cannot serve (a host the job names);
# pstat and --display say why that job waits, in words; with prte_autoscale_max_nodes above what
# the lender has, a job that could fit only with the nodes the lender lacks is refused at once,
# not left waiting for a grow the plan never asks for (item 2: one borrowable-nodes rule).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

gate gate1
start_autoscale_dvm 'spare1 slots=2\ngate1 slots=2\n' --prtemca prte_autoscale_idle_timeout 1 \
    --prtemca prte_autoscale_max_nodes 10

# node1's 2 slots and the pool's 2+2 make 6: the cap of 10 nodes promises nothing the pool lacks.
run seven timeout 30 "$PRUN" -n 7 hostname
expect_status seven 1
expect_line seven err "needs 7 slot(s) and cannot wait for them: even with the 2 node(s) its lender can lend borrowed the DVM would have 6 slot(s)"

# Every local node is this machine: PE= one more than its CPUs fits no node, borrowed or not.
wide=$(($(getconf _NPROCESSORS_ONLN) + 1))
run pe timeout 30 "$PRUN" -n 1 --map-by "slot:PE=$wide" hostname
expect_status pe 1
expect_line pe err "no more nodes of this kind can help"
run plain timeout 30 "$PRUN" -n 1 hostname
expect_status plain 0
[ "$(grows)" = 0 ] && pass "no grow for the PE=$wide job" || fail "$(grows) grow(s) for it"

# spare1 borrowed for a job, then idle; a job waiting for gate1 (held at its gate) cannot use it.
run four "$PRUN" -n 4 sh -c "$NODE_OF_RANK"
expect_status four 0
grep -q spare1 "$TEST_TMP/four.out" && pass "spare1 was borrowed" || fail "four ran on: $(cat "$TEST_TMP/four.out")"
"$PRUN" -n 1 --host gate1 --display allocation sh -c "$NODE_OF_RANK" >"$TEST_TMP/named.out" 2>"$TEST_TMP/named.err" &
named=$!
wait_for_line "$TEST_TMP/prte.err" "waits for the host(s) it names: gate1" || fail "the gate1 job does not wait"
run table "$PSTAT"
expect_line table out "waiting for host(s) gate1 to join the DVM"
wait_for_line "$TEST_TMP/prte.err" "autoscale: node spare1 is back with its lender" &&
    pass "idle spare1 went back while a job waited for gate1" || fail "spare1 stayed: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
alive "$named" && pass "the gate1 job still waits" || fail "the gate1 job ended: $(cat "$TEST_TMP/named.err")"
open_gate gate1
wait "$named" && pass "the gate1 job ran once gate1 joined" || fail "the gate1 job: $(cat "$TEST_TMP/named.err")"
expect_line named out "waits: waiting for the nodes the DVM borrows for it: waiting for host(s) gate1 to join the DVM"
grep -q '^gate1$' "$TEST_TMP/named.out" && pass "it ran on gate1" || fail "it ran on: $(cat "$TEST_TMP/named.out")"
stop_fg_dvm
finish
