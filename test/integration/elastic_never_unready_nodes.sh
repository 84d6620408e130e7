#!/bin/sh
# Conformance item 2: a job is never mapped onto a node whose daemon is not wired yet (grow) or is
# a departure target (shrink). A job that names the joining node (--host gate1) waits for its
# wireup instead of failing or launching early; after node2 is released, jobs map nowhere on it,
# even when they ask for every slot (and the same on a flat tree); a grow launches daemons only on the nodes it was given, and
# growing onto a node already in the DVM changes nothing (no second daemon, no event).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2
gate gate1
run grow "$PALLOC" --do-not-wait -w gate1
expect_status grow 0
"$PRUN" -n 1 --host gate1 sh -c "$NODE_OF_RANK" >"$TEST_TMP/named.out" 2>"$TEST_TMP/named.err" &
prun_pid=$!
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS" && pass "a job naming the joining node waits" ||
    fail "the job naming gate1 was not parked"
grep -q "@1 -> PRTE_JOB_STATE_MAP " "$TEST_TMP/prte.err" && fail "the job was mapped before gate1 was wired" ||
    pass "nothing is mapped onto gate1 before its daemon is wired"
open_gate gate1
wait "$prun_pid"
[ $? -eq 0 ] && [ "$(cat "$TEST_TMP/named.out")" = "gate1" ] && pass "it then ran on gate1" ||
    fail "job on gate1: $(cat "$TEST_TMP/named.out" "$TEST_TMP/named.err")"
[ "$(grep -c 'plm/ssh: daemon [0-9]* on ' "$TEST_TMP/prte.err")" -eq 3 ] &&
    pass "the grow launched a daemon on gate1 only (3 launches in all)" ||
    fail "daemon launches: $(grep 'plm/ssh: daemon [0-9]* on ' "$TEST_TMP/prte.err")"

# Growing onto a node that is already in the DVM changes nothing.
run again "$PALLOC" -w node1
expect_status again 0
expect_line again out "ready"
[ "$(grep -c 'plm/ssh: daemon [0-9]* on ' "$TEST_TMP/prte.err")" -eq 3 ] && pass "no second daemon on node1" ||
    fail "a second daemon was launched on node1"

# After node2 leaves, nothing maps there.
run shrink "$PALLOC" --shrink initial -w node2
expect_status shrink 0
expect_line shrink out "released"
run after "$PRUN" -n 4 --map-by node sh -c "$NODE_OF_RANK"
expect_status after 0
grep -q node2 "$TEST_TMP/after.out" && fail "a process ran on the departed node2" ||
    pass "nothing runs on the departed node2 ($(sort "$TEST_TMP/after.out" | uniq | tr '\n' ' '))"
run named_gone "$PRUN" -n 1 --host node2 hostname
[ "$(status_of named_gone)" -ne 0 ] && pass "a job naming the departed node2 is refused" || fail "a job ran on node2"
stop_fg_dvm

# The same grow and shrink on a flat tree (rml_radix 64: every daemon a child of the master).
start_elastic_dvm 2 64
run flat_grow "$PALLOC" -w node3,node4
expect_line flat_grow out "ready; ras hosts; 2 node(s) up: node3, node4"
run flat_shrink "$PALLOC" --shrink alloc-1 -w node3
expect_line flat_shrink out "alloc-1: released; ras hosts; 1 node(s) up: node4"
run flat_after "$PRUN" -n 3 --map-by node sh -c "$NODE_OF_RANK"
[ "$(sort "$TEST_TMP/flat_after.out" | tr '\n' ' ')" = "node1 node2 node4 " ] && pass "flat tree: jobs span the survivors" ||
    fail "flat tree: ranks ran on $(sort "$TEST_TMP/flat_after.out" | tr '\n' ' ')"
stop_fg_dvm
exit $failures
