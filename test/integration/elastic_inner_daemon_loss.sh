#!/bin/sh
# Spec case (issue 27, 2): an inner daemon of the routing tree gone, by a fault and by a shrink,
# leaves its children serving. On 6 local nodes with rml_radix 2 (0: 1,2  1: 3,4  2: 5,6):
# daemon 1 is killed (kill -9) while jobs run on its children node3 and node4 and on the other
# branch: the DVM carries on without node1 (one repair on the master, 3 and 4 adopted by it), the
# job that had a process on node1 fails naming it, and every other job ends with status 0 - the
# ends of those on node3 and node4 reach the master only through the repaired tree. A collective
# across the survivors (putget: a fence over every node) works after. Then daemon 2, inner too,
# is released (palloc --shrink) while a job runs on its child node5: node5 and node6 stay,
# re-parented to the master, the job ends 0, and later collectives span them. Daemon loss outside
# elastic mode ends the DVM instead (dvm_daemon_loss.sh).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
PUTGET="$PRTE_BUILDDIR/test/clients/putget"

# bystander NAME NODES: a job (one rank per node) that runs until `stop_running NAME`, as $NAME_pid.
# Bounded: a job whose end never reaches the master fails the test instead of hanging it.
bystander() {
    timeout -k 5 25 "$PRUN" -n "$(echo "$2" | tr ',' '\n' | wc -l)" --host "$2" --map-by node sh -c "$UNTIL_STOPPED" "$1" \
        >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" &
    eval "${1}_pid=\$!"
}

# ended NAME STATUS-TEST WHAT: waits for job NAME; its status must pass `test $status STATUS-TEST`.
ended() {
    eval "wait \$${1}_pid"
    status=$?
    if [ $status $2 ]; then pass "$3 ($status)"; else
        fail "$3: prun exited $status (124: it hung)"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; fi
}

# tree_has LINE WHAT: the master's tree after its last repair has LINE ("3 -> 0: -"). The master
# logs the tree unprefixed, one line a rank, after its "[vm:PID] rml: rml: repair" line.
tree_has() {
    tree=$(awk -v pid="$DVM_PID" '
        $0 ~ "^\\[[^]]*:" pid "\\] rml: rml: repair" { n = 0; on = 1; next }
        on && /^[0-9]+ -> / { t[n++] = $0; next }
        { on = 0 }
        END { for (i = 0; i < n; i++) print t[i] }' "$TEST_TMP/prte.err")
    echo "$tree" | grep -qx "$1" && pass "$2" || { fail "$2: the master's tree is"; echo "$tree" | sed 's/^/    /'; }
}

start_elastic_dvm 6 2
bystander victim node1,node2
bystander below node3,node4
bystander elsewhere node2,node5
wait_for_lines "$TEST_TMP/victim.out" "victim running" 2 100
wait_for_lines "$TEST_TMP/below.out" "below running" 2 100
wait_for_lines "$TEST_TMP/elsewhere.out" "elsewhere running" 2 100
[ "$(cat "$TEST_TMP"/victim.out "$TEST_TMP"/below.out "$TEST_TMP"/elsewhere.out | wc -l)" -eq 6 ] &&
    pass "the jobs run on node1-5" || fail "the jobs did not all start"

repairs=$(master_repairs)
inner=$(daemon_pid 1)
kill -9 "$inner"
wait_for_line "$TEST_TMP/prte.err" "the DVM carries on without node node1" && pass "prte reports the loss and carries on" ||
    fail "no loss report"
ended victim "-ne 0" "the job with a process on node1 failed"
grep -q "daemon 1 on node node1" "$TEST_TMP/victim.err" && pass "its message names node1" ||
    fail "prun's message: $(cat "$TEST_TMP/victim.err")"
[ "$(master_repairs)" -eq $((repairs + 1)) ] && pass "the master repaired its tree once" ||
    fail "the master made $(( $(master_repairs) - repairs )) repairs"
tree_has "3 -> 0: -" "daemon 3 (node3) is the master's child now"
tree_has "4 -> 0: -" "daemon 4 (node4) is the master's child now"
# The jobs below and beside the lost daemon end when told to, their ends reaching the master.
stop_running below
stop_running elsewhere
ended below "-eq 0" "the job on node1's children (node3, node4) ran on and ended well"
ended elsewhere "-eq 0" "the job on the other branch (node2, node5) ran on and ended well"
run after_loss timeout -k 5 20 "$PRUN" -n 5 --map-by node "$PUTGET"
expect_status after_loss 0
expect_line after_loss out "putget ok size 5"
grep -q "declared lost" "$TEST_TMP/prte.err" && fail "a daemon was declared lost: $(grep 'declared lost' "$TEST_TMP/prte.err")" ||
    pass "no other daemon was taken for lost"
[ "$(grep -c "the DVM carries on without node" "$TEST_TMP/prte.err")" -eq 1 ] && pass "node1 is the only node lost" ||
    fail "nodes lost: $(grep "the DVM carries on without node" "$TEST_TMP/prte.err")"

# Shrinking daemon 2, over node5 and node6, while a job runs on node5.
bystander child node5
wait_for_line "$TEST_TMP/child.out" "child running" || fail "the job on node5 did not start"
leaving=$(daemon_pid 2)
repairs=$(master_repairs)
run shrink timeout -k 5 20 "$PALLOC" --shrink initial -w node2
expect_status shrink 0
expect_line shrink out "initial: released"
wait_gone "$leaving" && pass "node2's daemon left" || fail "node2's daemon still runs"
[ "$(master_repairs)" -eq $((repairs + 1)) ] && pass "the master repaired its tree once for the shrink" ||
    fail "the master made $(( $(master_repairs) - repairs )) repairs"
tree_has "5 -> 0: -" "daemon 5 (node5) is the master's child now"
tree_has "6 -> 0: -" "daemon 6 (node6) is the master's child now"
alive "$child_pid" && pass "the job on node5 runs on through the shrink" || fail "the job on node5 ended"
stop_running child
ended child "-eq 0" "the job on node5 ended well"
run after_shrink timeout -k 5 20 "$PRUN" -n 4 --map-by node "$PUTGET"
expect_status after_shrink 0
expect_line after_shrink out "putget ok size 4"
run where timeout -k 5 20 "$PRUN" -n 4 --map-by node sh -c "$NODE_OF_RANK"
[ "$(sort "$TEST_TMP/where.out" | tr '\n' ' ')" = "node3 node4 node5 node6 " ] &&
    pass "jobs run on node3-6, the children of both departed inner daemons" ||
    fail "ranks ran on: $(sort "$TEST_TMP/where.out" | tr '\n' ' ')"
grep -q "declared lost" "$TEST_TMP/prte.err" && fail "a daemon was declared lost: $(grep 'declared lost' "$TEST_TMP/prte.err")" ||
    pass "no child was taken for lost"
alive "$DVM_PID" && pass "the DVM carries on" || fail "the DVM ended"
stop_fg_dvm
exit $failures
