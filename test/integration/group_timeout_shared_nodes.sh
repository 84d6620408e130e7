#!/bin/sh
# Issue 26 item 5: PMIX_TIMEOUT on a group construct with several members on each node, which one
# member never joins. 4 local nodes, 8 ranks by node (two on each): every rank but 7 constructs
# with a 2 s PMIX_TIMEOUT. Before, PMIx 4.2.2 timed the construct itself: it re-armed its timer
# for each member that called, and once the time had passed the servers of node1-3 spun for ever
# (pterm then waited 7 s for daemons 1-3, which outlived the DVM), and on node4, where rank 7
# never called, its timer's handler crashed the daemon, so rank 3 was never answered. Now the DVM
# times it and PMIx never sees PMIX_TIMEOUT (src/pmix/pmix422/group_timeouts.c): every caller
# gets PMIX_ERR_TIMEOUT, the servers keep answering, and pterm finds every daemon.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 4 2 --prtemca pmix_server_verbose 1

timeout 120 "$PRUN" -n 8 --map-by node "$CLIENTS/group" --id shared --timeout 2 --late-rank 7 \
    --late-until "$TEST_TMP/release" --expect-error >"$TEST_TMP/shared.out" 2>"$TEST_TMP/shared.err" &
job=$!
wait_for_lines "$TEST_TMP/shared.out" '^group refused rank' 7 600 "$job"
: >"$TEST_TMP/release"
wait "$job"
job_status=$?
for r in 0 1 2 3 4 5 6; do
    if grep -q "^group refused rank $r: TIMEOUT$" "$TEST_TMP/shared.out"; then
        pass "rank $r's construct returned PMIX_ERR_TIMEOUT"
    else
        fail "rank $r: $(grep "rank $r" "$TEST_TMP/shared.out" | tr '\n' ' ')"
    fi
done
[ "$job_status" = 0 ] && pass "the job ended normally once rank 7 left" ||
    { fail "the job exited $job_status"; sed 's/^/    /' "$TEST_TMP/shared.err"; }
if grep -q "^\[node4\].*group shared construct: not complete within the 2 s.*1 caller(s) on this node answered" \
    "$TEST_TMP/prte.err"; then pass "node4's daemon timed out rank 3, whose neighbour never called"; else
    fail "node4's daemon did not say it timed out rank 3"; fi
if grep -q "was lost\|Segmentation fault" "$TEST_TMP/prte.err"; then
    fail "a daemon was lost: $(grep "was lost\|Segmentation fault" "$TEST_TMP/prte.err" | head -3)"
else pass "no daemon was lost"; fi

# Every node's PMIx server still answers, past the moment PMIx's own timers would have come due:
# a job of two ranks on each node constructs a group (with a time limit everyone meets).
run after timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/group" --id after --timeout 5
expect_status after 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/after.out")" = 8 ] && pass "every node's PMIx server still serves groups" ||
    fail "after the timeout: $(cat "$TEST_TMP/after.out" "$TEST_TMP/after.err")"

daemons=$(dvm_daemons)
start=$(date +%s%N)
"$PTERM" >"$TEST_TMP/pterm.out" 2>"$TEST_TMP/pterm.err"
pterm_status=$?
took=$((($(date +%s%N) - start) / 1000000))
[ "$pterm_status" = 0 ] && pass "pterm exits 0 (in $took ms)" || fail "pterm exited $pterm_status"
if grep -q "did not answer\|did not end within" "$TEST_TMP/pterm.err" "$TEST_TMP/prte.err"; then
    fail "a daemon did not answer pterm: $(grep -h "did not answer\|did not end within" "$TEST_TMP/pterm.err" \
        "$TEST_TMP/prte.err" | head -2)"
else pass "every daemon answered the order to exit"; fi
left=
for d in $daemons; do alive "$d" && left="$left $d"; done
[ -z "$left" ] && pass "no daemon outlived pterm ($(echo $daemons | wc -w) were running)" ||
    fail "daemon(s)$left still running after pterm returned"
alive "$DVM_PID" || DVM_PID=
finish
