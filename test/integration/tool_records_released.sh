#!/bin/sh
# Issue 14, item 3: PMIx 4.2.2's server kept about 3.5 KB for every tool that ever connected
# (its connection, rank and namespace records) and more for each output registration, so a DVM
# grew 8.9 KB per prun. Each new tool connection now releases what departed tools left
# (src/pmix/pmix422/repairs.c). This checks the releases happen (the DVM's log counts them), and
# that they touch nothing alive: a prun connected throughout still gets its output and status, a
# prun killed outright is released too. Every prun registers for its job's output and
# deregisters at the end, the path whose requests the repairs release as well (the DVM's log
# shows both at this verbosity). The memory figure itself is bench/soak's.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_dvm_foreground --prtemca pmix_server_verbose 5
grep -q "PMIx 4.2.2 repairs: on" "$TEST_TMP/prte.err" ||
    { fail "the DVM's PMIx 4.2.2 repairs, which release departed tools' records, are not on: $(grep "repairs" "$TEST_TMP/prte.err")"; stop_dvm; exit 1; }
pass "the DVM says its PMIx 4.2.2 repairs are on"

# A prun that stays connected while the others come and go; its job ends when told to.
"$PRUN" -n 1 sh -c "while [ ! -e '$TEST_TMP/go' ]; do sleep 0.05; done; echo long-job-finished" \
    >"$TEST_TMP/long.out" 2>"$TEST_TMP/long.err" &
long=$!
# A prun killed outright, its connection gone without a finalize.
"$PRUN" -n 1 sleep 600 >/dev/null 2>&1 &
victim=$!
wait_for_lines "$TEST_TMP/prte.err" "tool prun connected as" 2 100
kill -9 "$victim"
wait "$victim" 2>/dev/null

# Oversubscribing: the killed prun's job frees its slot only once the DVM has noticed its launcher's
# end and ended it, which these need not wait for (slots are not what this checks).
jobs=20 i=0 bad=0
while [ $i -lt $jobs ]; do
    out=$("$PRUN" -n 1 --map-by :OVERSUBSCRIBE echo "job-$i" 2>&1)
    [ $? -eq 0 ] && [ "$out" = "job-$i" ] || { bad=$((bad + 1)); echo "    job $i: $out"; }
    i=$((i + 1))
done
[ $bad -eq 0 ] && pass "$jobs pruns in a row ran and printed their output" || fail "$bad of $jobs pruns failed"

touch "$TEST_TMP/go"
wait "$long"
long_status=$?
[ $long_status -eq 0 ] && grep -qx "long-job-finished" "$TEST_TMP/long.out" &&
    pass "the prun connected throughout got its job's output and status" ||
    fail "the long prun exited $long_status: $(cat "$TEST_TMP/long.out" "$TEST_TMP/long.err")"

# One more connection releases what the last ones left.
run last "$PRUN" -n 2 true
expect_status last 0

# Tools that departed before the last connection: the killed prun, the 20 and the long prun (22). Each is released by a later connection, once PMIx has seen its socket close;
# a close PMIx has not processed yet when the next tool connects waits for the one after, so the
# last two may still be held.
released=$(sed -n "s/.*released the PMIx records of \([0-9]*\) departed tool(s).*/\1/p" "$TEST_TMP/prte.err" |
    awk '{ n += $1 } END { print n + 0 }')
[ "$released" -ge 20 ] && pass "$released departed tools' records were released" ||
    fail "only $released departed tools' records were released (expected at least 20 of 22)"
[ "$released" -le 22 ] && pass "no more records were released than tools departed" ||
    fail "$released records released, but only 22 tools had departed"
deregistrations=$(grep -c "output deregistration" "$TEST_TMP/prte.err")
[ "$deregistrations" -ge 20 ] && pass "the pruns deregistered their output ($deregistrations)" ||
    fail "only $deregistrations output deregistrations reached the DVM"
stop_dvm
exit $failures
