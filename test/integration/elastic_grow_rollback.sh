#!/bin/sh
# Conformance item 5: a grow that fails is rolled back to the DVM's pre-grow membership - the
# campaign's started daemons terminated, its nodes gone - scoped to that campaign. A grow onto
# node3 and unreachable1 (whose launch fails as ssh does) runs beside a grow onto gate1: node3's
# daemon is stopped, jobs parked on the failed grow are aborted naming the campaign and the
# cause, the gate1 grow and the existing daemons carry on. Also: a grow whose daemon never calls
# home (plm_ssh_callhome_timeout), a job's --add-host that fails (its message names the host), a
# requester on another node told by PMIX_ERR_DVM_MOD (events build) or the `failed` status
# (both builds), and teardown of the DVM with a grow pending.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2 --prtemca pmix_server_verbose 2
gate gate1
gate failgate1
run other "$PALLOC" --do-not-wait -w gate1
other_id=$(head -1 "$TEST_TMP/other.out")
"$PRUN" -n 1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/first.out" 2>"$TEST_TMP/first.err" &
first=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" || fail "job @1 was not parked"
# The grow that fails: node3 comes up, failgate1's launch fails when its gate opens.
"$PALLOC" -w node3,failgate1 >"$TEST_TMP/bad.out" 2>"$TEST_TMP/bad.err" &
bad=$!
wait_for_line "$TEST_TMP/prte.err" "campaign 2 (grow): daemon(s) 4,5 launching" || fail "the second grow did not start"
"$PRUN" -n 1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/second.out" 2>"$TEST_TMP/second.err" &
second=$!
wait_for_line "$TEST_TMP/prte.err" "@2 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" || fail "job @2 was not parked"
wait_for_line "$TEST_TMP/prte.err" "daemon 4 on node node3 called home" || fail "node3's daemon never called home"
open_gate failgate1
wait "$bad"
[ $? -eq 1 ] && pass "palloc exits 1 for the failed grow" || fail "palloc exited $? for the failed grow"
grep -q "alloc-2: failed: daemon 5 on node failgate1 failed to start" "$TEST_TMP/bad.out" &&
    pass "its status says failed, with the cause" || fail "palloc: $(cat "$TEST_TMP/bad.out" "$TEST_TMP/bad.err")"
wait "$second"
[ $? -ne 0 ] && pass "the job parked during the failed grow is aborted" || fail "job @2 ran"
grep -q "waiting for the DVM to grow and is aborted: the DVM could not grow (campaign 2, allocation alloc-2" "$TEST_TMP/second.err" &&
    grep -q "failgate1" "$TEST_TMP/second.err" && pass "its message names the campaign and the cause" ||
    fail "job @2's message: $(cat "$TEST_TMP/second.err")"
t=0; while [ -n "$(daemon_pid 4)" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
[ -z "$(daemon_pid 4)" ] && pass "node3's daemon (rank 4), started by the failed grow, was terminated" ||
    fail "node3's daemon is still running"
alive "$first" && pass "the job parked only on the other grow is still waiting" || fail "job @1 ended"
grep -q "campaign 1 (grow, $other_id) failed" "$TEST_TMP/prte.err" && fail "the concurrent grow failed too" ||
    pass "the concurrent grow onto gate1 is untouched"
open_gate gate1
wait "$first"
[ $? -eq 0 ] && pass "job @1 ran once gate1 joined" || fail "job @1 failed: $(cat "$TEST_TMP/first.err")"
run other_status "$PALLOC" --status "$other_id"
expect_line other_status out "$other_id: ready; ras hosts; 1 node(s) up: gate1"
# The DVM's nodes, as the allocation report lists them (a job of 3 ranks by node would never
# reach a fourth node listed after gate1), and a job on each of them.
run after "$PRUN" --display allocation -n 3 --map-by node sh -c "$NODE_OF_RANK"
expect_status after 0
allocated=$(sed -n 's/^    \([^ ]*\): slots=.*/\1/p' "$TEST_TMP/after.out" | sort | tr '\n' ' ')
[ "$allocated" = "gate1 node1 node2 " ] && pass "the DVM is node1, node2 and gate1: no trace of node3" ||
    { fail "the DVM's nodes now: $allocated"; sed 's/^/    /' "$TEST_TMP/after.out"; }
[ "$(grep -v '^ \|^=' "$TEST_TMP/after.out" | sort | tr '\n' ' ')" = "gate1 node1 node2 " ] && pass "a job runs on each" ||
    fail "ranks ran on: $(grep -v '^ \|^=' "$TEST_TMP/after.out" | sort | tr '\n' ' ')"
run unreachable "$PALLOC" -w unreachable1
expect_status unreachable 1
expect_line unreachable out "ssh: connect to host unreachable1 port 22: Connection refused"

# A node can be grown again after its grow was rolled back.
run regrow "$PALLOC" -w node3
expect_status regrow 0
expect_line regrow out "ready; ras hosts; 1 node(s) up: node3"

# --add-host onto a node that cannot be reached: the job fails, naming the host.
run addhost "$PRUN" -n 1 --add-host unreachable2 hostname
[ "$(status_of addhost)" -ne 0 ] && pass "a job whose --add-host fails does not run" || fail "the --add-host job ran"
expect_line addhost err "unreachable2"

# A requester on another node (rank 0 of a job on node2) hears of the failure.
run remote "$PRUN" -n 1 --host node2 "$ALLOC_CLIENT" grow unreachable3 rq7
expect_status remote 0
remote_alloc=$(sed -n 's/^phase1 SUCCESS alloc \([^ ]*\) req rq7$/\1/p' "$TEST_TMP/remote.out")
[ -n "$remote_alloc" ] && pass "phase one: success, an allocation id, rq7 echoed" ||
    fail "phase one: $(cat "$TEST_TMP/remote.out")"
expect_line remote out "outcome $remote_alloc: failed: daemon"
# The one event, a failure, with the allocation and request ids (read from the event itself).
events_build && expect_line remote out "events ready 0 failed 1 alloc $remote_alloc req rq7"

# Teardown with a grow pending: drained as a failure, nothing left parked or running.
gate gate2
run pending "$PALLOC" --do-not-wait -w gate2
"$PRUN" -n 1 hostname >"$TEST_TMP/last.out" 2>"$TEST_TMP/last.err" &
last=$!
wait_for_line "$TEST_TMP/prte.err" "@[0-9]* -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (parked" || fail "the last job was not parked"
stop_fg_dvm
wait "$last"
[ $? -ne 0 ] && pass "a job parked across the teardown ends (it does not hang)" || fail "the last job ran"
grep -q "failed after .*: the DVM is shutting down; rolling back node(s) gate2" "$TEST_TMP/prte.err" &&
    pass "the pending grow was drained as a failure" || fail "the pending grow was not drained"

# A daemon that never calls home fails its grow when plm_ssh_callhome_timeout runs out.
start_elastic_dvm 1 2 --prtemca plm_ssh_callhome_timeout 2
run hang "$PALLOC" -w hang1
expect_status hang 1
expect_line hang out "did not call home within 2 s (plm_ssh_callhome_timeout)"
stop_fg_dvm
exit $failures
