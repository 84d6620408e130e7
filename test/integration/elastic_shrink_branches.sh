#!/bin/sh
# Spec case (issue 27, 6; collective-shrink-completion.txt): a shrink spanning several branches of
# the routing tree, with a crash inside its departure window. On 8 local nodes with radix 2
# (0: 1,2  1: 3,4  2: 5,6  3: 7,8) the shrink takes node4 (under 1), node6 (under 2) and node7
# (under 3). A surviving daemon, node5, is stopped so that the campaign's collective cannot
# finish, and target node6, stopped too so that it cannot leave cleanly first (its parent node2
# would pass it the order at once), is killed with SIGKILL while the window is open; once node5
# resumes:
# exactly one routing-tree repair on the master, exactly one completion of the campaign, and the
# survivors (node1, node2, node3, node5, node8) all serve a job and a collective across them.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
PUTGET="$PRTE_BUILDDIR/test/clients/putget"

start_elastic_dvm 8 2
repairs=$(master_repairs)
held=$(daemon_pid 5)
targets="$(daemon_pid 4) $(daemon_pid 6) $(daemon_pid 7)"
crashed=$(daemon_pid 6)
kill -STOP "$held" "$crashed"
"$PALLOC" --shrink initial -w node4,node6,node7 >"$TEST_TMP/shrink.out" 2>"$TEST_TMP/shrink.err" &
shrink_pid=$!
wait_for_line "$TEST_TMP/prte.err" "campaign 1 (shrink" || fail "no shrink campaign started"
alive "$crashed" && pass "target node6 is still there when the campaign has started" ||
    fail "node6's daemon left before it could crash"
kill -9 "$crashed"
wait_gone "$crashed" || fail "node6's daemon survived SIGKILL"
alive "$shrink_pid" && pass "the campaign is still open when target node6 crashes" ||
    fail "the campaign ended before the crash: $(cat "$TEST_TMP/shrink.out" "$TEST_TMP/shrink.err")"
kill -CONT "$held"

wait "$shrink_pid" && pass "the shrink completed" || fail "the shrink failed: $(cat "$TEST_TMP/shrink.out" "$TEST_TMP/shrink.err")"
grep -q "released" "$TEST_TMP/shrink.out" && pass "palloc reports the release" || fail "palloc said: $(cat "$TEST_TMP/shrink.out")"
wait_gone $targets && pass "all three targets are gone" || fail "targets left running"
# The campaign's lines go to the ras and plm verbose streams alike: count one stream's.
n=$(grep -c "plm: campaign 1 (shrink, [^)]*) complete in" "$TEST_TMP/prte.err")
[ "$n" = 1 ] && pass "exactly one completion of the campaign" || fail "$n completions of the campaign"
grep -q "plm: campaign 1 (shrink, [^)]*) failed" "$TEST_TMP/prte.err" && fail "the campaign also failed" ||
    pass "no failure of the campaign"
[ "$(master_repairs)" -eq $((repairs + 1)) ] && pass "exactly one repair on the master for three branches and a crash" ||
    fail "$(( $(master_repairs) - repairs )) repairs on the master"
grep -q "carries on without node node6\|daemon 6 .*lost" "$TEST_TMP/prte.err" &&
    fail "the crash of a departing target was taken for a fault" || pass "the target's crash counted as its departure"

run where "$PRUN" -n 5 --map-by node sh -c "$NODE_OF_RANK"
expect_status where 0
[ "$(sort "$TEST_TMP/where.out" | tr '\n' ' ')" = "node1 node2 node3 node5 node8 " ] &&
    pass "the survivors are node1 node2 node3 node5 node8" || fail "ranks ran on: $(sort "$TEST_TMP/where.out" | tr '\n' ' ')"
run fence "$PRUN" -n 5 --map-by node "$PUTGET"
expect_status fence 0
expect_line fence out "putget ok size 5"
stop_fg_dvm
exit $failures
