#!/bin/sh
# Issue 13 item 2: PMIx groups over ranks on several nodes and of two jobs, on 3 local nodes
# (rml_radix 2): every member gets the same context id, issued by the master and never twice
# (100 constructs in a row), groups without a context id, and the collective state freed, PMIx's
# own tracker of each construct and destruct included (PMIx 4.2.2 never frees it: pmix422/repairs.h).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5
dvm_ns=$(sed -n 's/.*PMIx server \(prte-[^ ]*\):0 started.*/\1/p' "$TEST_TMP/prte.err" | head -1)
[ -n "$dvm_ns" ] || fail "cannot find the DVM's namespace in its log"

# A group of two jobs on all nodes: jobs 1 and 2 of this DVM, each naming the other as members.
"$PRUN" -n 3 --map-by node:OVERSUBSCRIBE "$CLIENTS/group" --id two-jobs --put-get --member "$dvm_ns@2:*" \
    >"$TEST_TMP/job_a.out" 2>"$TEST_TMP/job_a.err" &
job_a=$!
wait_for_line "$TEST_TMP/prte.err" "spawns job $dvm_ns@1" || fail "job 1 did not start"
run job_b timeout 60 "$PRUN" -n 3 --map-by node:OVERSUBSCRIBE "$CLIENTS/group" --id two-jobs --put-get \
    --member "$dvm_ns@1:*"
wait "$job_a"
status_a=$?
cat "$TEST_TMP/job_a.out" "$TEST_TMP/job_b.out" >"$TEST_TMP/two.out"
members=$(grep -c '^group ok rank' "$TEST_TMP/two.out")
ids=$(awk '/^group ok/ {print $NF}' "$TEST_TMP/two.out" | sort -u)
if [ $status_a = 0 ] && [ "$(status_of job_b)" = 0 ] && [ "$members" = 6 ] && [ "$(echo "$ids" | wc -l)" = 1 ]; then
    pass "a group of two jobs on 3 nodes: 6 members, one context id ($ids)"
else
    fail "two jobs: exits $status_a/$(status_of job_b), $members members, context ids: $ids"
    sed 's/^/    /' "$TEST_TMP/two.out" "$TEST_TMP/job_a.err" "$TEST_TMP/job_b.err"
fi
# After the construct, each member reads both jobs' sizes (job-level information) and the value
# every other member put before it, all from what the construct gathered: the data of every node
# arrives with it, so no member's value is fetched by the direct modex.
read_all=$(grep -c "^group data rank [0-9]*: 5 value(s) of 2 job(s)$" "$TEST_TMP/two.out")
[ "$read_all" = 6 ] && pass "two jobs: each of the 6 members read the 5 others' data and both jobs' sizes" ||
    fail "two jobs: $read_all of 6 members read all the data: $(grep '^group data' "$TEST_TMP/two.out")"
fetched=$(grep -c "direct modex for $dvm_ns@[12]:" "$TEST_TMP/prte.err")
[ "$fetched" = 0 ] && pass "two jobs: every member's data came with the construct (no direct modex)" ||
    fail "two jobs: $fetched direct modex line(s) for the group's jobs"

# 100 constructs in a row: each one context id for all members, no id issued twice.
run many timeout 300 "$PRUN" -n 6 --map-by node:OVERSUBSCRIBE "$CLIENTS/group" --repeat 100 --id many
expect_status many 0
per_iter=$(awk '/^group ok/ {print $6, $NF}' "$TEST_TMP/many.out" | sort -u | awk '{print $1}' | uniq -d | wc -l)
distinct=$(awk '/^group ok/ {print $NF}' "$TEST_TMP/many.out" | sort -u | wc -l)
lines=$(grep -c '^group ok' "$TEST_TMP/many.out")
[ "$lines" = 600 ] && [ "$per_iter" = 0 ] && [ "$distinct" = 100 ] &&
    pass "100 constructs: 600 members ok, one id per construct, 100 distinct ids" ||
    fail "100 constructs: $lines member lines, $per_iter constructs with several ids, $distinct distinct ids"
# PMIx 4.2.2 keeps its tracker of every group operation (about 9 KB a construct on each daemon
# hosting members): the DVM releases it once PMIx has answered the members, on each of the 3
# daemons hosting members, for each of the 100 constructs and 100 destructs.
released=$(grep -c "group many-[0-9]* \(construct\|destruct\): PMIx's tracker of it released" "$TEST_TMP/prte.err")
[ "$released" = 600 ] && pass "PMIx's trackers of 100 constructs and 100 destructs released on 3 daemons" ||
    fail "PMIx's group trackers released $released times, expected 600 (3 daemons x 200 operations)"
# The ids are the master's: all above those of the two-job group, none reused from it.
if awk '/^group ok/ {print $NF}' "$TEST_TMP/many.out" | grep -qx "$ids"; then
    fail "a context id of the two-job group was issued again"; else pass "no id of the earlier group issued again"; fi

# Without a context id, across nodes: the members named rank by rank (PMIx 4.2.2 completes a
# construct over PMIX_RANK_WILDCARD without a context id on each node alone, docs/user-guide.md),
# so the daemons meet in a collective, which the log shows on each of the 3 daemons.
run plain timeout 60 "$PRUN" -n 6 --map-by node:OVERSUBSCRIBE "$CLIENTS/group" --no-context-id --by-rank --id plain
expect_status plain 0
[ "$(grep -c '^group ok rank .* ctxid -1$' "$TEST_TMP/plain.out")" = 6 ] && pass "6 members without a context id" ||
    fail "plain: $(cat "$TEST_TMP/plain.out")"
n=$(grep -c "allgather .*|group plain construct#1: .* from this daemon" "$TEST_TMP/prte.err")
[ "$n" = 3 ] && pass "plain: the construct was a collective of the 3 daemons" || fail "plain: $n daemons took part"

# The collective state of every group is freed on every daemon (master and 3) once its jobs are
# gone: the last job's release line of each says so.
plain_ns=$(sed -n "s/.*spawns job \($dvm_ns@[0-9]*\).*/\1/p" "$TEST_TMP/prte.err" | tail -1)
held=$(grep "job $plain_ns released; still held" "$TEST_TMP/prte.err")
if [ "$(echo "$held" | grep -c ', 0 collective(s),')" = 4 ]; then pass "no collective left on any of the 4 daemons"; else
    fail "collective state after the last job: $held"; fi
stop_dvm
finish
