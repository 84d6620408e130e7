#!/bin/sh
# Autoscaling (prte_autoscale; docs/elastic.md, "Autoscaling"): it needs an elastic DVM; a job
# larger than the DVM waits and runs after a grow of just enough nodes from the ssh pool; jobs
# waiting together share one grow and are admitted in arrival order; with the pool all lent, a
# job waits for slots to free and a later, smaller job never passes it; pstat shows who waits and
# why, as a table and as JSON.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

run gate "$PRTE" --prtemca prte_autoscale 1
expect_status gate 1
expect_line gate err "prte_autoscale needs an elastic DVM: add --prtemca prte_elastic_mode 1"

# no_jobs: waits (up to 10 s) until the DVM runs no job, so that the next one finds the slots free.
no_jobs() {
    t=0
    while ! "$PSTAT" | grep -q '^jobs: 0$'; do
        [ $t -ge 100 ] && { fail "jobs still in the DVM: $("$PSTAT")"; return; }
        sleep 0.1
        t=$((t + 1))
    done
}

# A long batch window, so that the two jobs started together below surely wait together.
start_autoscale_dvm 'spare1 slots=2\nspare2 slots=2\nspare3 slots=2\n' --prtemca prte_autoscale_batch_ms 700

# Larger than the DVM (4 processes, 2 slots): it runs after a grow of one node.
run big "$PRUN" -n 4 sh -c "$NODE_OF_RANK"
expect_status big 0
[ "$(sort -u "$TEST_TMP/big.out" | tr '\n' ' ')" = "node1 spare1 " ] && pass "the job ran on node1 and the borrowed spare1" ||
    fail "the big job: $(cat "$TEST_TMP/big.out" "$TEST_TMP/big.err")"
grep -q "autoscale: growing by 1 node(s) (alloc-1) for job(s) [^ ]*: they need 4 slot(s), 2 free, 0 coming" "$TEST_TMP/prte.err" &&
    pass "one node asked for, for its 2 missing slots" || fail "the grow: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
no_jobs

# Two jobs that do not fit, started together (node1 and spare1 busy): one grow of two nodes for
# both, each admitted in the order it began to wait.
"$PRUN" -n 4 sh -c "$UNTIL_STOPPED" blocker >"$TEST_TMP/blocker.out" 2>&1 &
blocker=$!
wait_for_lines "$TEST_TMP/blocker.out" "blocker running" 4 100
"$PRUN" -n 2 sh -c "$NODE_OF_RANK" >"$TEST_TMP/a.out" 2>"$TEST_TMP/a.err" &
a=$!
"$PRUN" -n 2 sh -c "$NODE_OF_RANK" >"$TEST_TMP/b.out" 2>"$TEST_TMP/b.err" &
b=$!
wait "$a" && pass "job A ran after the grow" || fail "job A: $(cat "$TEST_TMP/a.err")"
wait "$b" && pass "job B ran after the grow" || fail "job B: $(cat "$TEST_TMP/b.err")"
[ "$(grows)" = 2 ] && pass "A and B shared one grow" || fail "$(grows) grows: $(grep 'growing by' "$TEST_TMP/prte.err")"
grep -q "autoscale: growing by 2 node(s) (alloc-2) for job(s) [^ ]*, [^ ]*: they need 4 slot(s), 0 free" "$TEST_TMP/prte.err" &&
    pass "the shared grow asked for 2 nodes, for both" || fail "the shared grow: $(grep 'growing by' "$TEST_TMP/prte.err")"
[ "$(sort -u "$TEST_TMP/a.out" "$TEST_TMP/b.out" | tr '\n' ' ')" = "spare2 spare3 " ] &&
    pass "A and B ran on the nodes borrowed for them" || fail "A and B ran on: $(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out")"
# (the first to wait tried to map; the second waited its turn behind it)
waited=$(order_of "waits")
admitted=$(order_of "may map now")
[ -n "$waited" ] && [ "$waited" = "$admitted" ] && pass "admitted in the order they began to wait: $admitted" ||
    fail "waited in the order '$waited', admitted in '$admitted'"
stop_running blocker
wait "$blocker"
no_jobs

# The pool all lent (3 borrowed, 8 slots) and all busy: C waits for slots to free, D, smaller and
# later, waits its turn behind C; pstat says so; once the slots free, C maps before D.
"$PRUN" -n 8 sh -c "$UNTIL_STOPPED" full >"$TEST_TMP/full.out" 2>&1 &
full=$!
wait_for_lines "$TEST_TMP/full.out" "full running" 8 100
"$PRUN" -n 2 sh -c "$NODE_OF_RANK" >"$TEST_TMP/c.out" 2>"$TEST_TMP/c.err" &
c=$!
wait_for_line "$TEST_TMP/prte.err" "the DVM has borrowed all it may (3 node(s); the 3 node(s) its lender can lend): they wait for slots to free" ||
    fail "C did not wait for slots: $(grep 'autoscale:' "$TEST_TMP/prte.err" | tail -3)"
"$PRUN" -n 1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/d.out" 2>"$TEST_TMP/d.err" &
d=$!
wait_for_line "$TEST_TMP/prte.err" "waits its turn behind 1 earlier job(s)" || fail "D did not wait its turn"
run table "$PSTAT"
expect_status table 0
expect_line table out "waiting   "
expect_line table out "waiting for slots to free: needs 2 slot(s); the DVM has borrowed all it may"
expect_line table out "waiting its turn: 1 earlier job(s) wait for nodes"
expect_line table out "ssh alloc-2 (autoscale)"
run json "$PSTAT" --json
expect_status json 0
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=[j for j in d["jobs"] if j["status"]=="waiting"]; sys.exit(0 if d["autoscale"] and len(w)==2 and len(d["nodes"])>=4 else 1)' \
        "$TEST_TMP/json.out" && pass "pstat --json: valid JSON, two jobs waiting" || fail "pstat --json: $(cat "$TEST_TMP/json.out")"
fi
kill -0 "$d" 2>/dev/null && pass "D waits while C does" || fail "D ended before C could run: $(cat "$TEST_TMP/d.err")"
stop_running full
wait "$full"
wait "$c" && pass "C ran once slots freed" || fail "C: $(cat "$TEST_TMP/c.err")"
wait "$d" && pass "D ran after C" || fail "D: $(cat "$TEST_TMP/d.err")"
admitted=$(order_of "may map now" | awk '{print $(NF-1), $NF}')
waited=$(order_of "waits" | awk '{print $(NF-1), $NF}')
[ "$admitted" = "$waited" ] && pass "C was admitted before D" || fail "waited '$waited', admitted '$admitted'"
[ "$(grows)" = 2 ] && pass "no grow beyond the pool" || fail "$(grows) grows"

stop_fg_dvm
finish
