# The DVM as its users and their tools see it over time: PMIx tools attached while a prun runs
# (pps, the proc table, the allocation, pattrs),
# ^C, a prun whose reader goes away, 200 jobs in a row with nothing leaked, SIGTERM to prte, and
# prterun.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"

run pterm_none "$PTERM"
[ "$(status_of pterm_none)" -ne 0 ] && pass "pterm without a DVM fails" || fail "pterm without a DVM exited 0"
expect_line pterm_none err "no DVM is running"

start_dvm

# ---- pps attached while a prun runs (PRRTE 3.0: "multiple possible servers") ----
"$PRUN" -n 2 sleep 60 >"$TEST_TMP/bg.out" 2>"$TEST_TMP/bg.err" &
bg=$!
found=
for i in $(seq 100); do  # until the job shows up, however long the machine takes to start it
    pps --pid "$DVM_PID" >"$TEST_TMP/pps.out" 2>&1
    pps_status=$?
    if grep -q "Active nspaces:.*@" "$TEST_TMP/pps.out"; then found=yes; break; fi
    [ $pps_status -ne 0 ] && break
done
if [ -n "$found" ]; then pass "pps lists the running job"; else fail "pps (exit $pps_status): $(cat "$TEST_TMP/pps.out")"; fi
expect_no_line pps out "multiple possible servers"
# The processes of the running job, as a PMIx tool reads them (PMIX_QUERY_PROC_TABLE).
uri=$(sed -n 's/^uri=//p' "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID")
run proctable "$PRTE_BUILDDIR/test/clients/proctable" "$uri"
expect_status proctable 0
[ "$(grep -c ' exe sleep$' "$TEST_TMP/proctable.out")" -eq 2 ] && pass "the proc table lists both ranks of the job" ||
    fail "proc table: $(cat "$TEST_TMP/proctable.out")"
# The allocation the DVM runs on (PMIX_QUERY_ALLOC_STATUS): this node, with the job's 2 slots in use.
run alloc "$PRTE_BUILDDIR/test/clients/proctable" "$uri" --alloc
expect_status alloc 0
grep -q "^alloc initial: ready; ras hosts; 1 node(s) up: [^;]*; [0-9]* slot(s), 2 in use$" "$TEST_TMP/alloc.out" &&
    pass "the allocation status names this node and the job's 2 slots" || fail "allocation status: $(cat "$TEST_TMP/alloc.out")"
run alloc_unknown "$PRTE_BUILDDIR/test/clients/proctable" "$uri" --alloc no-such-allocation
expect_line alloc_unknown out "alloc status NOT-FOUND"

# OpenPMIx's pattrs asks which attributes the host and the server honour
# (PMIX_QUERY_ATTRIBUTE_SUPPORT). PMIx 4.2.2's own answer handed its server the wrong record and
# the master died of SIGSEGV (pmix422/attribute_queries.c): now each is answered (the host
# registers no attributes: NOT-FOUND; the server's table) and the DVM lives on.
run pattrs_host pattrs --pid "$DVM_PID" --host PMIx_Query_info
expect_line pattrs_host err "PMIx_Query_info returned: NOT-FOUND"
run pattrs_server pattrs --pid "$DVM_PID" --server PMIx_Query_info
expect_status pattrs_server 0
expect_line pattrs_server err "SERVER SUPPORTED ATTRIBUTES"
alive "$DVM_PID" && pass "the DVM lives on after pattrs's attribute queries" || fail "the DVM died after pattrs"
run proctable_after "$PRTE_BUILDDIR/test/clients/proctable" "$uri"
expect_status proctable_after 0

# ---- ^C to prun ends the job ----
kill -INT $bg
wait $bg
bg_status=$?
[ $bg_status -eq 130 ] && pass "prun exits 130 after SIGINT" || fail "prun exited $bg_status after SIGINT"
if [ -z "$(dvm_leftovers | grep -v prte)" ]; then pass "SIGINT killed the job's processes"; else fail "left running: $(dvm_leftovers)"; fi

# ---- a prun whose reader goes away: ends the job, exits 141, the DVM stays small and usable ----
{ "$PRUN" -n 1 yes 2>"$TEST_TMP/yes.err"; echo $? >"$TEST_TMP/yes.status"; } | head -1 >"$TEST_TMP/yes.out"
[ "$(cat "$TEST_TMP/yes.status")" = 141 ] && pass "prun | head: prun exits 141" || fail "prun | head: prun exited $(cat "$TEST_TMP/yes.status")"
[ "$(cat "$TEST_TMP/yes.out")" = y ] && pass "head got the output" || fail "head got '$(cat "$TEST_TMP/yes.out")'"
hwm_kb=$(awk '/^VmHWM/ {print $2}' /proc/"$DVM_PID"/status)
[ "$hwm_kb" -lt 200000 ] && pass "prte's peak memory stayed bounded (${hwm_kb} kB)" || fail "prte's peak memory grew to ${hwm_kb} kB"
if [ -z "$(dvm_leftovers | grep -v prte)" ]; then pass "yes was stopped"; else fail "left running: $(dvm_leftovers)"; fi

# ---- 200 jobs in a row: every one succeeds, nothing is leaked ----
session=$(ls -d "$TEST_TMP/prte.$(id -u)"/*.session)
for i in 1 2 3 4 5; do "$PRUN" -n 1 true; done  # PMIx sets up its caches on the first jobs
fds_before=$(ls /proc/"$DVM_PID"/fd | wc -l)
rss_before=$(awk '/^VmRSS/ {print $2}' /proc/"$DVM_PID"/status)
entries_before=$(find "$session" | wc -l)
failed=0
for i in $(seq 200); do "$PRUN" -n 1 true || failed=$((failed + 1)); done
[ $failed -eq 0 ] && pass "200 back-to-back jobs succeeded" || fail "$failed of 200 jobs failed"
# The last prun's connection may still be closing on prte's side when prun has exited: a leak is
# an fd that stays, so give prte (at most 5 s) to close it before counting.
for i in $(seq 50); do
    fds_after=$(ls /proc/"$DVM_PID"/fd | wc -l)
    [ "$fds_after" -le "$fds_before" ] && break
    sleep 0.1
done
entries_after=$(find "$session" | wc -l)
# The baseline can itself hold the warm-up's last connection still closing, so the count may fall.
[ "$fds_after" -le "$fds_before" ] && pass "no fd leaked ($fds_after open, $fds_before before)" || fail "prte had $fds_before fds, now $fds_after: $(ls -l /proc/$DVM_PID/fd)"
# PMIx 4.2.2 keeps about 12 KB per namespace ever registered (its hash store); one namespace per
# tool connection added 54 KB more per prun before tools shared one (src/pmix/tools.cc).
rss_after=$(awk '/^VmRSS/ {print $2}' /proc/"$DVM_PID"/status)
grown=$((rss_after - rss_before))
[ "$grown" -lt 8000 ] && pass "prte grew by ${grown} kB over 200 jobs" || fail "prte grew by ${grown} kB over 200 jobs"
[ "$entries_after" -eq "$entries_before" ] && pass "no session entries leaked" || fail "session dir had $entries_before entries, now $entries_after"
if [ -z "$(dvm_leftovers | grep -v prte)" ]; then pass "no process leaked"; else fail "left running: $(dvm_leftovers)"; fi

# ---- SIGTERM to prte: its jobs are killed, the DVM goes away and unpublishes itself ----
"$PRUN" -n 2 sleep 60 >/dev/null 2>&1 &
bg=$!
for i in $(seq 200); do  # until both ranks run (a wait for a condition, bounded)
    [ "$(dvm_leftovers | grep -c sleep)" -ge 2 ] && break
    sleep 0.05
done
sleeps=$(dvm_leftovers | awk '/sleep/ {print $1}')
kill -TERM "$DVM_PID"
wait $bg
bg_status=$?
[ $bg_status -ne 0 ] && pass "prun reports the DVM's end (exit $bg_status)" || fail "prun exited 0 though its DVM was terminated"
for i in $(seq 200); do alive "$DVM_PID" || break; sleep 0.05; done
if alive "$DVM_PID"; then fail "prte still running after SIGTERM"; else pass "prte ended on SIGTERM"; fi
left=
for p in $sleeps; do alive "$p" && left="$left $p"; done
[ -z "$left" ] && pass "SIGTERM killed the job's processes" || fail "still running after SIGTERM:$left"
[ ! -e "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID" ] && pass "registry entry removed" || fail "dvm.$DVM_PID left behind"
[ -e "$TEST_TMP/prte.out" ] && pass "TMPDIR's files survived" || fail "the DVM's end removed files in TMPDIR"
mkdir -p "$TEST_TMP"
DVM_PID=

# ---- prterun: a DVM for one job ----
# prte processes started under this test's TMPDIR (other tests' DVMs may run meanwhile).
our_prtes() { test_pids -x prte; }
run prterun "$PRTERUN" -n 2 --output tag echo one-shot
expect_status prterun 0
expect_line prterun out ",0]<stdout>: one-shot"
expect_line prterun out ",1]<stdout>: one-shot"
run prterun5 "$PRTERUN" -n 1 sh -c 'exit 5'
expect_status prterun5 5
run prterun_bad "$PRTERUN" --no-such-option
expect_status prterun_bad 2
if ls "$TEST_TMP/prte.$(id -u)"/dvm.* >/dev/null 2>&1; then fail "prterun left a DVM registered"; else pass "prterun left no DVM"; fi
left=$(our_prtes)
[ -z "$left" ] && pass "prterun left no prte running" || fail "prterun left prte running: $left"

finish
