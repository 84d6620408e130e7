#!/bin/sh
# Autoscaling (prte_autoscale; docs/elastic.md, "Autoscaling"): a job that could not fit even with
# prte_autoscale_max_nodes borrowed is refused at once, naming the cap; a grow that fails ends the
# jobs waiting on it with the cause, and the DVM carries on; without prte_autoscale an elastic DVM
# fails a job that does not fit at once, as it always has, and borrows nothing.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

# Off: "not enough slots" at once, no grow, no autoscaler line.
printf 'spare1 slots=2\n' >"$TEST_TMP/pool"
start_elastic_dvm 1 2 --prtemca ras_ssh_pool "$TEST_TMP/pool"
run off "$PRUN" -n 64 hostname
[ "$(status_of off)" -ne 0 ] && pass "without prte_autoscale the job fails" || fail "the job ran"
expect_line off err "not enough slots"
expect_no_line off err "prte_autoscale"
grep -q "campaign .* (grow" "$TEST_TMP/prte.err" && fail "the DVM grew without prte_autoscale" || pass "no grow"
grep -q "autoscale:" "$TEST_TMP/prte.err" && fail "the autoscaler spoke while off" || pass "the autoscaler is silent"
stop_fg_dvm

# The cap: 1 node of 2 slots may be borrowed; 5 processes could never fit (2 + 2).
start_autoscale_dvm 'unreachable1 slots=2\nspare2 slots=2\n' --prtemca prte_autoscale_max_nodes 1 \
    --prtemca prte_autoscale_batch_ms 500
start=$(date +%s)
run capped "$PRUN" -n 5 hostname
[ "$(status_of capped)" -ne 0 ] && pass "the job beyond the cap fails" || fail "the job beyond the cap ran"
expect_line capped err "needs 5 slot(s) and cannot wait for them: even with prte_autoscale_max_nodes (1) borrowed the DVM would have 4 slot(s)"
[ $(($(date +%s) - start)) -le 3 ] && pass "refused at once" || fail "the refusal took $(($(date +%s) - start)) s"
[ "$(grows)" = 0 ] && pass "no grow for a job beyond the cap" || fail "$(grows) grow(s)"

# A failed grow (the pool's first host refuses connections): the two jobs waiting on it end with
# the cause; the DVM carries on and runs a job that fits.
"$PRUN" -n 3 hostname >"$TEST_TMP/w1.out" 2>"$TEST_TMP/w1.err" &
w1=$!
"$PRUN" -n 3 hostname >"$TEST_TMP/w2.out" 2>"$TEST_TMP/w2.err" &
w2=$!
wait "$w1" && fail "w1 ran" || pass "w1 failed"
wait "$w2" && fail "w2 ran" || pass "w2 failed"
for w in w1 w2; do
    grep -q "was waiting for the DVM to grow and is aborted: .*unreachable1" "$TEST_TMP/$w.err" &&
        pass "$w's error names the failed grow's node" || fail "$w's error: $(cat "$TEST_TMP/$w.err")"
done
[ "$(grows)" = 1 ] && pass "one grow for both" || fail "$(grows) grows"
grep -q "autoscale: grow alloc-1 failed: .*; ending the job(s) waiting on it" "$TEST_TMP/prte.err" &&
    pass "the autoscaler logged the failure" || fail "no failure line: $(grep 'autoscale:' "$TEST_TMP/prte.err")"
run after "$PRUN" -n 2 hostname
expect_status after 0
run table "$PSTAT"
expect_line table out "jobs: 0"
stop_fg_dvm
finish
