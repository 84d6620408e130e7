#!/bin/sh
# Autoscaling with Slurm as the lender (root, real slurmctld and slurmd; docs/elastic.md,
# "Autoscaling"): ras/slurm tells the autoscaler what Slurm could lend from its look at idle nodes,
# so a job too large for even every idle node is refused at once naming that limit, and a node
# another Slurm job holds is not counted; a job larger than the DVM waits while the DVM grows by a
# companion job, runs on the node Slurm lent, and the node, once idle, goes back to Slurm; the
# DVM's own node never does; a node given back is lendable at once, though the last look saw it
# taken; two jobs waiting together share one grow of two companion jobs, and their nodes stay
# while they run; a grow of three nodes; a grow Slurm refuses (the idle nodes taken since the
# last look) ends the job waiting on it with Slurm's reason.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/slurm_lib.sh"
require_slurm pslh 198.19.49 16849
slurm_up 4
start_dvm_job 1
# Another user's job holds node4 before the DVM starts: Slurm can lend node2 and node3 only.
salloc --no-shell -N 1 -w node4 --exclusive -J other-user >"$TEST_TMP/other.out" 2>&1 || fail "salloc of node4 for another job"
other=$(squeue -h -n other-user -o %i)
# A batch window long enough that the two jobs started together below surely wait together.
start_slurm_dvm --prtemca prte_autoscale 1 --prtemca prte_autoscale_idle_timeout 1 --prtemca ras_slurm_watch_interval 2 \
    --prtemca prte_autoscale_batch_ms 500
wait_for_line "$TEST_TMP/prte.err" "slurm: Slurm has 2 idle node(s): node2 (2 CPUs), node3 (2 CPUs)" &&
    pass "ras/slurm sees node2 and node3 idle" || fail "the idle look: $(grep 'idle node' "$TEST_TMP/prte.err")"

# 8 slots: node1's 2 and 2 for each idle node make 6, so it cannot wait (node4 is not counted).
run too_big "$PRUN" -n 8 hostname
expect_status too_big 1
expect_line too_big err "needs 8 slot(s) and cannot wait for them: even with the 2 node(s) its lender can lend borrowed the DVM would have 6 slot(s)"

# 4 slots: the DVM (node1, 2 slots) grows by one node through a companion job, and the job runs there.
# The job stays until a look has seen the lent node taken (1 idle node left).
"$PRUN" -n 4 sh -c 'hostname; until [ -e "$0" ]; do sleep 0.1; done' "$TEST_TMP/stop.grow" >"$TEST_TMP/grow.out" 2>&1 &
grow=$!
wait_for_line "$TEST_TMP/prte.err" "slurm: Slurm has 1 idle node(s): node" || fail "no look saw the lent node taken"
: >"$TEST_TMP/stop.grow"
wait "$grow" && pass "the job larger than the DVM ran" || fail "the job failed: $(cat "$TEST_TMP/grow.out")"
grep -q "autoscale: growing by 1 node(s)" "$TEST_TMP/prte.err" && pass "the autoscaler grew by one node" ||
    fail "no grow of 1 node: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
lent=$(sed -n 's/.*slurm: grow 1 granted as allocation [^:]*: \(node[0-9]\) (job [0-9]*).*/\1/p' "$TEST_TMP/prte.err")
case "$lent" in
node2 | node3) pass "Slurm lent $lent" ;;
*) fail "the grow's node: '$lent' ($(grep 'slurm: grow' "$TEST_TMP/prte.err"))" ;;
esac
[ "$(sort "$TEST_TMP/grow.out" | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "2node1 2$lent " ] &&
    pass "the job ran on node1 and $lent" || fail "the job ran on: $(sort "$TEST_TMP/grow.out" | tr '\n' ' ')"

# Idle for prte_autoscale_idle_timeout, the lent node goes back to Slurm; node1 stays.
wait_for_line "$TEST_TMP/prte.err" "autoscale: node $lent is back with its lender" && pass "$lent was given back" ||
    fail "$lent was not given back: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
wait_node_state "$lent" idle && pass "$lent is idle in sinfo" || fail "$lent is $(node_state "$lent") in sinfo"
# Its companion job over, ras/slurm counts it as lendable again at once, although its last look
# saw it taken: the next step's grow of 2 nodes, asked for at once, needs it.
wait_for_line "$TEST_TMP/prte.err" "slurm: node $lent is back with Slurm" || fail "ras/slurm did not see $lent's job end"
[ "$(squeue_jobs | grep -v other-user | awk '{ print $1 }' | tr '\n' ' ')" = "$DVM_JOB " ] &&
    pass "the companion job ended; the DVM's own job stays" || fail "jobs left: $(squeue_jobs)"
grep -q "autoscale: node node1 idle" "$TEST_TMP/prte.err" && fail "the DVM's own node1 was given back" ||
    pass "node1 stays"

# Two jobs of 3 arrive together (2 slots free): one grow of 2 nodes for both. Each runs for more
# than the idle timeout: their nodes stay until they end, then go back.
"$PRUN" -n 3 sh -c 'hostname; until [ -e "$0" ]; do sleep 0.1; done' "$TEST_TMP/stop.pair" >"$TEST_TMP/a.out" 2>&1 &
a=$!
"$PRUN" -n 3 sh -c 'hostname; until [ -e "$0" ]; do sleep 0.1; done' "$TEST_TMP/stop.pair" >"$TEST_TMP/b.out" 2>&1 &
b=$!
wait_for_lines "$TEST_TMP/a.out" "node" 3 150
wait_for_lines "$TEST_TMP/b.out" "node" 3 150
[ "$(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out" | grep -c node)" = 6 ] && pass "both jobs run" || fail "the jobs did not both start: $(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out")"
[ "$(grep -c "autoscale: growing by" "$TEST_TMP/prte.err")" = 2 ] &&
    grep -q "autoscale: growing by 2 node(s) .* for job(s) [^ ]*, [^ ]*:" "$TEST_TMP/prte.err" &&
    pass "one grow of 2 nodes for both jobs" || fail "the grows: $(grep 'autoscale: growing' "$TEST_TMP/prte.err")"
sleep 2
[ "$(grep -c "giving it back" "$TEST_TMP/prte.err")" = 1 ] && pass "no node given back while the jobs run" ||
    fail "given back while running: $(grep 'giving it back' "$TEST_TMP/prte.err")"
: >"$TEST_TMP/stop.pair"
wait "$a" && wait "$b" && pass "both jobs ended well" || fail "a job failed: $(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out")"
wait_for_lines "$TEST_TMP/prte.err" "is back with its lender" 3 150
[ "$(grep -c "is back with its lender" "$TEST_TMP/prte.err")" = 3 ] && pass "both nodes went back" ||
    fail "given back: $(grep 'is back with its lender' "$TEST_TMP/prte.err")"
wait_node_state node2 idle && wait_node_state node3 idle && pass "node2 and node3 idle in sinfo" ||
    fail "node2 is $(node_state node2), node3 is $(node_state node3)"

stop_fg_dvm

# The other job ends: Slurm can lend node4 too, and the look at start says so. A job of 8 grows
# the DVM by three nodes and runs; they go back.
scancel "$other"
wait_node_state node4 idle || fail "node4 is $(node_state node4) after scancel"
start_slurm_dvm --prtemca prte_autoscale 1 --prtemca prte_autoscale_idle_timeout 1 --prtemca ras_slurm_watch_interval 3600
wait_for_line "$TEST_TMP/prte.err" "slurm: Slurm has 3 idle node(s): node2 (2 CPUs), node3 (2 CPUs), node4 (2 CPUs)" &&
    pass "node4 counted once the other job ended" || fail "the idle look: $(grep 'idle node' "$TEST_TMP/prte.err")"
run all "$PRUN" -n 8 hostname
expect_status all 0
grep -q "autoscale: growing by 3 node(s)" "$TEST_TMP/prte.err" && pass "grown by 3 nodes" ||
    fail "the grows: $(grep 'autoscale: growing' "$TEST_TMP/prte.err")"
wait_for_lines "$TEST_TMP/prte.err" "slurm: node node[234] is back with Slurm" 3 150
[ "$(grep -c "slurm: node node[234] is back with Slurm" "$TEST_TMP/prte.err")" = 3 ] && pass "the three went back" ||
    fail "back with Slurm: $(grep 'is back with Slurm' "$TEST_TMP/prte.err")"

# Another job takes the idle nodes after the look: the grow the autoscaler asks for is refused,
# and the waiting job ends with Slurm's reason.
for n in node2 node3 node4; do wait_node_state $n idle || fail "$n is $(node_state $n)"; done
salloc --no-shell -N 3 -w node2,node3,node4 --exclusive -J other-user >"$TEST_TMP/other.out" 2>&1 ||
    fail "salloc of node2-4 for another job"
run refused "$PRUN" -n 4 hostname
expect_status refused 1
expect_line refused err "was waiting for the DVM to grow and is aborted: "
expect_line refused err "Slurm cannot grant 1 node(s) now: "
scancel -n other-user
run after "$PRUN" -n 2 hostname
expect_status after 0
stop_fg_dvm
finish
