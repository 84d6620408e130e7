#!/bin/sh
# Issue 27, item 10: what a killed DVM leaves. The session directories of a master and daemons
# killed with SIGKILL are removed by the next DVM of the user on the same node (master and
# daemons alike), only once the process that made each is gone: a live DVM's, another node's and
# one whose owner is still running stay. Both DVMs' ends then leave no per-user directory. And a
# test killed outright (CTest's timeout: SIGKILL, no trap) leaves no daemonized prte running.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

user_dir="$TEST_TMP/prte.$(id -u)"
sessions_of() { ls -d "$user_dir"/prte-*-"$1".session "$user_dir"/prte-*-"$1".d[0-9]*.session 2>/dev/null; }

# A: a live DVM of node1 and node2, there throughout.
start_local_nodes_dvm 2 2
a=$DVM_PID
a_sessions=$(sessions_of "$a")
[ "$(echo "$a_sessions" | wc -l)" -eq 3 ] && pass "DVM A has its 3 session directories" || fail "A's: $a_sessions"
mv "$TEST_TMP/prte.err" "$TEST_TMP/a.err"

# B: on the same nodes, killed outright with its daemons, so nobody removes its directories.
start_local_nodes_dvm 2 2
b=$DVM_PID
b_daemons=$(dvm_daemons)
kill -9 "$b" $b_daemons
wait_gone "$b" $b_daemons || fail "DVM B survived SIGKILL"
wait "$b" 2>/dev/null
b_sessions=$(sessions_of "$b")
[ "$(echo "$b_sessions" | wc -l)" -eq 3 ] && pass "killed DVM B left its 3 session directories" ||
    fail "B left: $b_sessions"
# Directories whose owner is not a dead process of this node: another node's (its pid long gone
# here), and one of this node whose pid is alive (this shell) but started later than it says.
mkdir "$user_dir/prte-elsewhere-1.d1.session" "$user_dir/prte-reused-1.d1.session"
printf 'node=elsewhere\npid=%s\nstarted=1\n' "$b" >"$user_dir/prte-elsewhere-1.d1.session/owner"
printf 'node=node1\npid=%s\nstarted=1\n' "$$" >"$user_dir/prte-reused-1.d1.session/owner"

# C: the next DVM on these nodes.
DVM_PID=
start_local_nodes_dvm 2 2 --prtemca state_base_verbose 1
c=$DVM_PID
left=$(for d in $b_sessions; do [ -e "$d" ] && echo "$d"; done)
[ -z "$left" ] && pass "the next DVM removed the killed master's and daemons' session directories" ||
    fail "still there: $left"
grep -q "^\[node1\].*removed .*prte-.*-$b.d[0-9]*.session: the process that made it is no longer running" \
    "$TEST_TMP/prte.err" && pass "node1's daemon says which it removed" || fail "no daemon said it removed one"
grep -q "removed .*prte-.*-$b.session: the process" "$TEST_TMP/prte.err" && pass "the master says which it removed" ||
    fail "the master did not say it removed B's"
left=$(for d in $a_sessions; do [ -e "$d" ] || echo "$d"; done)
[ -z "$left" ] && pass "the live DVM A's directories stay" || fail "A's removed: $left"
[ -e "$user_dir/prte-elsewhere-1.d1.session" ] && pass "another node's directory stays" || fail "another node's was removed"
[ ! -e "$user_dir/prte-reused-1.d1.session" ] && pass "one whose pid now belongs to a later process was removed" ||
    fail "one whose pid was reused stays"
rm -r "$user_dir/prte-elsewhere-1.d1.session"
run a_job "$PRUN" --dvm "pid:$a" -n 2 --map-by node hostname
expect_status a_job 0
for dvm in "$c" "$a"; do
    "$PTERM" --dvm "pid:$dvm" >/dev/null 2>&1
    wait_gone "$dvm" && pass "pterm ended DVM $dvm" || { fail "DVM $dvm is still running after pterm"; kill -9 "$dvm"; }
    wait "$dvm" 2>/dev/null
done
DVM_PID=
t=0; while [ -e "$user_dir" ] && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
[ ! -e "$user_dir" ] && pass "no per-user directory left" || fail "left in $user_dir: $(ls -A "$user_dir")"

# A test killed outright: a daemonized DVM, and the test's shell and its children SIGKILLed.
cat >"$TEST_TMP/killed_test.sh" <<'INNER'
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
start_dvm
echo "dvm $DVM_PID $TEST_TMP"
sleep 600
INNER
sh "$TEST_TMP/killed_test.sh" >"$TEST_TMP/killed_test.out" 2>&1 &
inner=$!
wait_for_lines "$TEST_TMP/killed_test.out" "^dvm " 1 600 "$inner"
read -r _ inner_dvm inner_tmp <"$TEST_TMP/killed_test.out"
if [ -n "$inner_dvm" ] && alive "$inner_dvm"; then
    kill -9 "$inner" $(pgrep -P "$inner")
    wait "$inner" 2>/dev/null
    if wait_gone "$inner_dvm"; then pass "the killed test's daemonized DVM was ended"; else
        fail "the killed test's DVM (pid $inner_dvm) still runs"; kill -9 "$inner_dvm"; fi
    t=0; while [ -e "$inner_tmp" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
    [ ! -e "$inner_tmp" ] && pass "and its directory removed" || fail "$inner_tmp is left"
else
    fail "the inner test did not start its DVM: $(cat "$TEST_TMP/killed_test.out")"
fi
finish
