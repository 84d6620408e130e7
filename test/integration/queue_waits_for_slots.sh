#!/bin/sh
# The DVM's queue (issue 43, item 5), on a DVM of 2 slots whose both slots a blocker job holds:
# without the queue a job fails at once; with prun --queue it waits ("queued" in pstat) and runs
# when the slots free - 40 one-rank jobs at once all succeed; a job that could never fit the DVM
# is refused at once even with --queue; --queue-timeout ends a job still queued, exit 1; --timeout
# counts from launch, not from submission; a queued job whose prun is killed (SIGKILL, ^C) leaves
# the queue at once. Then prte_queue 1 queues a job that did not ask.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
PSTAT="$PRTE_BUILDDIR/src/tools/pstat/pstat"


start_blocker() {
    "$PRUN" -n 2 sh -c "$UNTIL_STOPPED" "$1" >"$TEST_TMP/$1.out" 2>&1 &
    wait_for_lines "$TEST_TMP/$1.out" "$1 running" 2 300
    [ "$(grep -c "$1 running" "$TEST_TMP/$1.out")" = 2 ] || { fail "the blocker $1 did not start"; finish; }
}

start_dvm --prtemca prte_set_slots 2
start_blocker blocker

# --- without the queue: refused at once, as ever ---
run no_queue timeout 30 "$PRUN" -n 1 echo ran
expect_status no_queue 1
expect_no_line no_queue out "ran"

# --- a job that could never fit (3 ranks, 2 slots) is refused at once, queue or not ---
run never_fits timeout 30 "$PRUN" --queue -n 3 echo ran
expect_status never_fits 1
expect_line never_fits err "slots"
[ "$(queued)" = 0 ] && pass "the never-fitting job was not queued" || fail "pstat shows a queued job: $("$PSTAT")"

# --- --queue-timeout: still queued after 1 s, ended with exit status 1 ---
run queue_timeout timeout 30 "$PRUN" --queue-timeout 1 -n 1 echo ran
expect_status queue_timeout 1
expect_line queue_timeout err "waited 1 s in the queue"
expect_no_line queue_timeout out "ran"

# --- a queued job's prun killed (SIGKILL, then ^C): the job leaves the queue at once ---
for sig in KILL INT; do
    "$PRUN" --queue -n 1 echo ran >"$TEST_TMP/killed_$sig.out" 2>&1 &
    victim=$!
    wait_queued 1 && pass "the job of the prun to be killed ($sig) is queued" || fail "no queued job: $("$PSTAT")"
    kill -s "$sig" "$victim"
    wait_queued 0 && pass "the job left the queue once its prun got SIG$sig" ||
        fail "after SIG$sig its job is still queued: $("$PSTAT")"
    wait "$victim"
done

# --- 40 one-rank jobs at once, and one with --timeout 2 queued longer than that: all run ---
"$PRUN" --queue --timeout 2 -n 1 echo timed ran >"$TEST_TMP/timed.out" 2>"$TEST_TMP/timed.err" &
timed=$!
wait_queued 1 || fail "the --timeout job was not queued"
pids=
i=1
while [ $i -le 40 ]; do
    "$PRUN" --queue -n 1 echo "job $i ran" >"$TEST_TMP/q$i.out" 2>"$TEST_TMP/q$i.err" &
    pids="$pids $!"
    i=$((i + 1))
done
wait_queued 41 && pass "41 jobs queued" || fail "not 41 queued: $("$PSTAT")"
"$PSTAT" >"$TEST_TMP/pstat.out"
expect_line pstat out "waiting for slots held by 1 job(s)"
expect_line pstat out "1 of 41 in the queue"
# The --timeout job has now waited longer than its timeout (the first in the queue, by pstat).
t=0
until "$PSTAT" | grep ' queued ' | head -1 | grep -qE 'for ([3-9]|[1-9][0-9])\.[0-9] s'; do
    [ $t -ge 100 ] && break
    sleep 0.1
    t=$((t + 1))
done
stop_running blocker
bad=0
i=1
for p in $pids; do
    wait "$p" || { bad=$((bad + 1)); sed 's/^/    /' "$TEST_TMP/q$i.err"; }
    grep -q "^job $i ran$" "$TEST_TMP/q$i.out" || bad=$((bad + 1))
    i=$((i + 1))
done
[ $bad = 0 ] && pass "all 40 queued jobs ran and succeeded" || fail "$bad of the 40 queued jobs failed"
wait "$timed" && grep -q "^timed ran$" "$TEST_TMP/timed.out" && pass "--timeout counted from the launch, not the queue" ||
    fail "the --timeout 2 job that waited 3 s in the queue failed: $(cat "$TEST_TMP/timed.err")"
[ "$(queued)" = 0 ] && pass "the queue is empty" || fail "jobs left queued: $("$PSTAT")"
stop_dvm

# --- prte_queue 1: every job queues, without --queue ---
start_dvm --prtemca prte_set_slots 2 --prtemca prte_queue 1
start_blocker blocker2
"$PRUN" -n 1 echo dvm-wide ran >"$TEST_TMP/dvmwide.out" 2>&1 &
dvmwide=$!
wait_queued 1 && pass "prte_queue 1 queued a job without --queue" || fail "not queued: $("$PSTAT")"
stop_running blocker2
wait "$dvmwide" && grep -q "^dvm-wide ran$" "$TEST_TMP/dvmwide.out" && pass "it ran once the slots freed" ||
    fail "the queued job failed: $(cat "$TEST_TMP/dvmwide.out")"
stop_dvm
finish
