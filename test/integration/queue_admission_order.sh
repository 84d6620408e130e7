#!/bin/sh
# The queue's admission order (issue 43, item 3; docs/elastic.md, "Admission"), on a DVM of 2
# slots, one held by a blocker, with a 2-rank job queued: by default (backfill) one-rank jobs run
# past it in the free slot, but at most prte_admission_max_passes (here 2) of them - the next waits
# behind it and runs after it; with prte_admission_order strict none passes it.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
PSTAT="$PRTE_BUILDDIR/src/tools/pstat/pstat"


# setup NAME: a blocker on one slot, and a 2-rank job queued behind it (pid in $big).
setup() {
    "$PRUN" -n 1 sh -c "$UNTIL_STOPPED" "$1" >"$TEST_TMP/$1.out" 2>&1 &
    wait_for_line "$TEST_TMP/$1.out" "$1 running" || { fail "the blocker $1 did not start"; finish; }
    "$PRUN" --queue -n 2 echo big ran >"$TEST_TMP/big_$1.out" 2>"$TEST_TMP/big_$1.err" &
    big=$!
    wait_queued 1 && pass "the 2-rank job is queued" || fail "the 2-rank job is not queued: $("$PSTAT")"
}

# --- backfill, at most 2 passes ---
start_dvm --prtemca prte_set_slots 2 --prtemca prte_admission_max_passes 2
setup blocker
for i in 1 2; do
    run "small$i" timeout 30 "$PRUN" --queue -n 1 echo small ran
    expect_status "small$i" 0
done
run table "$PSTAT"
expect_line table out "passed by 2 later job(s)"
"$PRUN" --queue -n 1 echo small3 ran >"$TEST_TMP/small3.out" 2>&1 &
small3=$!
wait_queued 2 && pass "the third small job waits behind the job passed twice" || fail "not 2 queued: $("$PSTAT")"
stop_running blocker
wait "$big" && pass "the 2-rank job ran once the blocker ended" || fail "the 2-rank job: $(cat "$TEST_TMP/big_blocker.err")"
wait "$small3" && pass "the third small job ran after it" || fail "small3: $(cat "$TEST_TMP/small3.out")"
stop_dvm

# --- strict: nothing passes the queued job ---
start_dvm --prtemca prte_set_slots 2 --prtemca prte_admission_order strict
setup blocker2
"$PRUN" --queue -n 1 echo strict ran >"$TEST_TMP/strict.out" 2>&1 &
strict=$!
wait_queued 2 && pass "strict: the small job waits behind the queued one" || fail "strict: not 2 queued: $("$PSTAT")"
alive "$strict" && pass "strict: the small job has not run" || fail "strict: the small job ended: $(cat "$TEST_TMP/strict.out")"
stop_running blocker2
wait "$big" && pass "strict: the 2-rank job ran first" || fail "strict: the 2-rank job failed"
wait "$strict" && pass "strict: then the small job" || fail "strict: the small job failed: $(cat "$TEST_TMP/strict.out")"
stop_dvm
finish
