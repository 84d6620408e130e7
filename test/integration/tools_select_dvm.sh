#!/bin/sh
# Issue 42 item 6: two DVMs share one TMPDIR, and each tool picks the one it is told. Ours (prun,
# pterm, pstat) by pid, namespace and URI; a third-party PMIx tool (OpenPMIx's pattrs) by the same
# three, through PMIx_tool_init's PMIX_SERVER_PIDINFO / PMIX_SERVER_NSPACE / PMIX_SERVER_URI, which
# find the DVM's own rendezvous files (pmix.<host>.tool.<pid> and .<namespace>, in its session
# directory). OpenPMIx 4.2.2's pps accepts --pid, --namespace and --uri but never passes them on
# (src/tools/pps/pps.c), so it searches every rendezvous file under TMPDIR and, finding two
# servers, refuses ("multiple possible servers"): checked here, as docs/user-guide.md says,
# with the workaround (a TMPDIR per DVM).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
PSTAT="$PRTE_BUILDDIR/src/tools/pstat/pstat"

run one "$PRTE" --daemonize --report-pid "$TEST_TMP/one.pid" --report-uri "$TEST_TMP/one.uri"
expect_status one 0
ONE=$(cat "$TEST_TMP/one.pid")
start_dvm --report-pid "$TEST_TMP/two.pid" --report-uri "$TEST_TMP/two.uri"
TWO=$(cat "$TEST_TMP/two.pid")
DVM_PID=$TWO  # the one stop_dvm stops at the end (the test stops the other itself)
ns_of() { sed -n 's/^nspace=//p' "$TEST_TMP/prte.$(id -u)/dvm.$1"; }
NS_ONE=$(ns_of "$ONE")
NS_TWO=$(ns_of "$TWO")
[ -n "$NS_ONE" ] && [ -n "$NS_TWO" ] && [ "$NS_ONE" != "$NS_TWO" ] && pass "two DVMs in one TMPDIR ($NS_ONE, $NS_TWO)" ||
    fail "the two DVMs' namespaces: '$NS_ONE' '$NS_TWO'"

# A job's namespace is its DVM's followed by @<n>: where each prun's job ran.
job_ns='echo "ns=$PMIX_NAMESPACE"'
run prun_none "$PRUN" -n 1 sh -c "$job_ns"
expect_status prun_none 1
expect_line prun_none err "$ONE"
run prun_pid "$PRUN" --pid "$ONE" -n 1 sh -c "$job_ns"
expect_line prun_pid out "ns=$NS_ONE@"
run prun_ns "$PRUN" --namespace "$NS_TWO" -n 1 sh -c "$job_ns"
expect_line prun_ns out "ns=$NS_TWO@"
run prun_uri "$PRUN" --dvm-uri "file:$TEST_TMP/one.uri" -n 1 sh -c "$job_ns"
expect_line prun_uri out "ns=$NS_ONE@"
run prun_uri2 "$PRUN" --dvm "uri:$(cat "$TEST_TMP/two.uri")" -n 1 sh -c "$job_ns"
expect_line prun_uri2 out "ns=$NS_TWO@"
# pstat: a job runs on the second DVM only; each pstat --pid shows its own DVM's jobs.
"$PRUN" --pid "$TWO" -n 1 sleep 60 >/dev/null 2>&1 &
sleeper=$!
for i in $(seq 200); do  # until the job shows up, however long the machine takes to start it
    "$PSTAT" --pid "$TWO" >"$TEST_TMP/pstat_two.out" 2>&1 || break
    grep -q "$NS_TWO@" "$TEST_TMP/pstat_two.out" && break
done
expect_line pstat_two out "$NS_TWO@"
run pstat_one "$PSTAT" --pid "$ONE"
expect_status pstat_one 0
expect_line pstat_one out "jobs: 0"
kill -INT "$sleeper"
wait "$sleeper"

# OpenPMIx's pattrs reaches the DVM named, by each of the three, and the DVMs live on.
for how in "--pid $TWO" "--namespace $NS_TWO" "--uri file:$TEST_TMP/two.uri"; do
    name=pattrs_$(echo "$how" | cut -c3-5)
    # shellcheck disable=SC2086 # the option and its value
    run "$name" pattrs $how --server PMIx_Query_info
    expect_status "$name" 0
    expect_line "$name" err "SERVER SUPPORTED ATTRIBUTES"
done
# pps ignores the pid it is given (OpenPMIx 4.2.2): with two DVMs in its TMPDIR it finds both.
run pps_two pps --pid "$TWO"
expect_line pps_two err "multiple possible servers"

run pterm_pid "$PTERM" --pid "$ONE"
expect_status pterm_pid 0
alive "$ONE" && fail "pterm --pid $ONE left that DVM running"
alive "$TWO" && pass "pterm --pid $ONE stopped that DVM and left the other" || fail "pterm --pid $ONE stopped DVM $TWO too"
# One DVM left in the TMPDIR: pps finds it (the workaround: a TMPDIR per DVM).
run pps_one sh -c "pps --pid $TWO 2>&1"
expect_line pps_one out "Active nspaces: $NS_TWO"
finish
