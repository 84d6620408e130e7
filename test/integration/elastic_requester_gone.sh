#!/bin/sh
# Spec case (issue 27, 4): the requester of a size change goes away before the change completes.
# Four requesters, each while its grow is held at a gate node (test/testbed/local-agent): palloc
# killed (kill -9) during a grow that completes, and during one that is rolled back (failgate:
# its launch fails once the gate opens); a job on node2 whose PMIx_Allocation_request (relayed by
# node2's daemon) asked for a grow and which ended normally after phase one, and one killed
# outright. Each campaign still completes or rolls back: the allocation's status says so,
# exactly one terminal outcome is raised for it (into the void), with no warning or error about
# the gone requester; a job parked on the completed grow runs there. No event goes astray: a
# live palloc and a live job on node2, each waiting on a grow of its own while a gone
# requester's failure is raised, hear their own outcome only (in a build with the events).
# Nothing leaks: later jobs run on every node the completed grows added, the killed pallocs' PMIx
# records are released by later tool connections (as tool_records_released.sh checks), and
# pterm leaves no daemon and no session directory.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
[ -x "$ALLOC_CLIENT" ] || { echo "FAIL: $ALLOC_CLIENT is not built (make check builds it)"; exit 1; }

# one_outcome ALLOC KIND: exactly one terminal outcome logged for ALLOC, of KIND (ready|failed),
# by whichever daemon raises it (the requester's node's).
one_outcome() {
    case $2 in
        ready) want="PMIX_DVM_IS_READY to\| complete: no completion event" ;;
        *) want="PMIX_ERR_DVM_MOD to\| failed: no completion event" ;;
    esac
    wait_for_line "$TEST_TMP/prte.err" "pmix_server: allocation $1[ :]" || true
    outcomes=$(grep "$EVENT_LINE" "$TEST_TMP/prte.err" | grep "allocation $1[ :]")
    [ "$(echo "$outcomes" | grep -c .)" -eq 1 ] && echo "$outcomes" | grep -q "$want" &&
        pass "$1: exactly one terminal outcome ($2), for a requester that is gone" || fail "$1's outcomes: $outcomes"
}

# status_is ALLOC WORD: PMIX_QUERY_ALLOC_STATUS says WORD for ALLOC.
status_is() {
    name=status_$(echo "$1" | tr -c 'a-z0-9\n' _)
    run "$name" "$PALLOC" --status "$1"
    expect_line "$name" out "$1: $2"
}

# palloc_killed NODE: palloc asks for NODE (a gate node) and is killed while the gate holds it;
# its allocation id in $alloc.
palloc_killed() {
    gate "$1"
    "$PALLOC" -w "$1" >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" &
    requester=$!
    wait_for_line "$TEST_TMP/$1.out" "^alloc-" || fail "palloc for $1 printed no allocation id"
    kill -9 "$requester"
    wait "$requester" 2>/dev/null
    alloc=$(head -1 "$TEST_TMP/$1.out")
}

start_elastic_dvm 2 2 --prtemca pmix_server_verbose 5

# palloc killed; its grow completes, and a job parked on it runs there.
palloc_killed gate1
a=$alloc
timeout -k 5 25 "$PRUN" -n 1 --host gate1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/parked.out" 2>"$TEST_TMP/parked.err" &
parked=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" || fail "the job on gate1 was not parked"
open_gate gate1
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, $a) complete" && pass "$a: the grow of the killed palloc completed" ||
    fail "$a: the grow did not complete"
wait "$parked"
[ $? -eq 0 ] && [ "$(cat "$TEST_TMP/parked.out")" = gate1 ] && pass "the job parked on it ran on gate1" ||
    fail "the parked job: $(cat "$TEST_TMP/parked.out" "$TEST_TMP/parked.err")"
one_outcome "$a" ready
status_is "$a" ready

# palloc killed; its grow is rolled back, while a live palloc waits on a grow of its own: the
# killed one's failure must not reach it (where the events are built, palloc ends at the first
# outcome event it hears: a stray PMIX_ERR_DVM_MOD would make it exit 1).
gate gate3
"$PALLOC" -w gate3 >"$TEST_TMP/live.out" 2>"$TEST_TMP/live.err" &
live=$!
wait_for_line "$TEST_TMP/live.out" "^alloc-" || fail "the live palloc printed no allocation id"
palloc_killed failgate1
b=$alloc
open_gate failgate1
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, $b) failed after" && pass "$b: the grow of the killed palloc was rolled back" ||
    fail "$b: the grow was not rolled back"
one_outcome "$b" failed
status_is "$b" "failed: daemon 5 on node failgate1 failed to start"
alive "$live" && pass "the live palloc still waits for its own grow" || fail "the live palloc ended: $(cat "$TEST_TMP/live.out" "$TEST_TMP/live.err")"
open_gate gate3
wait "$live"
[ $? -eq 0 ] && grep -q ": ready; ras hosts; 1 node(s) up: gate3" "$TEST_TMP/live.out" &&
    pass "the live palloc heard its own outcome only: ready" || fail "the live palloc: $(cat "$TEST_TMP/live.out" "$TEST_TMP/live.err")"

# A job asks, then ends normally while its grow waits at the gate; another is killed meanwhile.
gate gate2
run asker timeout -k 5 20 "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" grow-and-end gate2 ended-job
expect_status asker 0
c=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req ended-job$/\1/p' "$TEST_TMP/asker.out")
[ -n "$c" ] && pass "the job's request was accepted ($c), and the job ended" || fail "the asking job: $(cat "$TEST_TMP/asker.out" "$TEST_TMP/asker.err")"
open_gate gate2
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, $c) complete" && pass "$c: the grow of the ended job completed" ||
    fail "$c: the grow did not complete"
one_outcome "$c" ready
# The killed job's failure is raised by node2's daemon, where a live job on the same node waits
# on a grow of its own: it must hear exactly its own outcome (alloc_client counts the events).
gate failgate2
gate gate4
# Both jobs run before either asks (alloc_client watch: it asks once a line comes on its FIFO): a
# job that maps while a campaign is open is parked.
for j in livejob:gate4:live-job killed:failgate2:killed-job; do
    name=${j%%:*} rest=${j#*:}
    mkfifo "$TEST_TMP/$name.go"
    timeout -k 5 20 "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" watch "$TEST_TMP/$name.go" "${rest%%:*}" "${rest#*:}" \
        >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    eval "$name=\$!"
    wait_for_line "$TEST_TMP/$name.out" "^watching" || fail "$name did not start"
done
for name in livejob killed; do
    echo go >"$TEST_TMP/$name.go"
    wait_for_line "$TEST_TMP/$name.out" "^phase1 SUCCESS" || fail "$name's request was not accepted"
done
e=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req live-job$/\1/p' "$TEST_TMP/livejob.out")
d=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req killed-job$/\1/p' "$TEST_TMP/killed.out")
asker=$(pgrep -P "$(daemon_pid 2)" -f "alloc_client watch .* failgate2 ")
[ -n "$asker" ] && kill -9 "$asker"
wait "$killed"
[ $? -eq 137 ] && pass "the second asking job ended, killed" || fail "the second asking job did not end by the kill"
open_gate failgate2
wait_for_line "$TEST_TMP/prte.err" "campaign [0-9]* (grow, $d) failed after" && pass "$d: the grow of the killed job was rolled back" ||
    fail "$d: the grow was not rolled back"
one_outcome "$d" failed
open_gate gate4
wait "$livejob"
[ $? -eq 0 ] && grep -q "^outcome $e: ready" "$TEST_TMP/livejob.out" && pass "the live job's grow ($e) completed" ||
    fail "the live job: $(cat "$TEST_TMP/livejob.out" "$TEST_TMP/livejob.err")"
events_build && expect_line livejob out "events ready 1 failed 0 alloc $e req live-job"

# Nothing astray: no warning or error line, on the master or any daemon, about any of it.
# (The failed grows' own error lines name failgate1 and failgate2, and are expected.)
grep -E "(error|warning): " "$TEST_TMP/prte.err" | grep -v "failgate[12]" >"$TEST_TMP/complaints"
[ -s "$TEST_TMP/complaints" ] && { fail "warnings or errors in the DVM's log:"; sed 's/^/    /' "$TEST_TMP/complaints"; } ||
    pass "no warning or error about a gone requester"
alive "$DVM_PID" && pass "the DVM carries on" || fail "the DVM ended"
run after timeout -k 5 20 "$PRUN" -n 6 --map-by node sh -c "$NODE_OF_RANK"
expect_status after 0
[ "$(sort "$TEST_TMP/after.out" | tr '\n' ' ')" = "gate1 gate2 gate3 gate4 node1 node2 " ] &&
    pass "later jobs run on node1, node2 and the grown gate1-4" || fail "ranks ran on: $(sort "$TEST_TMP/after.out" | tr '\n' ' ')"
# The killed pallocs' records: released by the tool connections since (every palloc --status and
# prun above), each departed tool once; the two killed ones among them.
run last "$PRUN" -n 1 true
released=$(sed -n "s/.*released the PMIx records of \([0-9]*\) departed tool(s).*/\1/p" "$TEST_TMP/prte.err" |
    awk '{ n += $1 } END { print n + 0 }')
tools=$(grep -c "tool [a-z]* *connected as" "$TEST_TMP/prte.err")
[ "$released" -ge $((tools - 2)) ] && [ "$released" -lt "$tools" ] &&
    pass "$released of $tools tools' records released (all but the last ones)" ||
    fail "$released records released for $tools tools"
user_dir="$TEST_TMP/prte.$(id -u)"
[ "$(ls -d "$user_dir"/*.session 2>/dev/null | wc -l)" -ge 7 ] && pass "the master and its 6 daemons have session directories" ||
    fail "session directories: $(ls "$user_dir")"
stop_fg_dvm
left=$(ls -d "$user_dir"/*.session 2>/dev/null)
[ -z "$left" ] && pass "no session directory left after pterm" || fail "session directories left: $left"
exit $failures
