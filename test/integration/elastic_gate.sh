#!/bin/sh
# The gate (prte_elastic_mode, off by default) and conformance item 9. Off: an allocation request
# is refused with PMIX_ERR_NOT_SUPPORTED and a reason naming the parameter, so is --add-host, and
# the DVM is unchanged. On: palloc, --add-host and --add-hostfile grow a running DVM; a grown
# daemon learns the jobs already running; a job ending mid-grow does not hurt it; -N lends hosts
# from the ssh pool (ras_ssh_pool), which takes back exactly its own share of a release that
# spans it and ras/hosts; bad requests get a clear error and change nothing.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

# The fallback timer's parameter is range-checked like every integer parameter.
run negative "$PRTE" --prtemca prte_elastic_mode 1 --prtemca prte_elastic_leave_timeout -1
expect_status negative 1
expect_line negative err "prte_elastic_leave_timeout"

start_local_nodes_dvm 1 2
run off "$PALLOC" -w node2
expect_status off 1
expect_line off err "allocation requests need an elastic DVM: start prte with --prtemca prte_elastic_mode 1 (NOT-SUPPORTED)"
run off_add "$PRUN" -n 1 --add-host node2 hostname
[ "$(status_of off_add)" -ne 0 ] && pass "--add-host is refused without elastic mode" || fail "--add-host ran"
expect_line off_add err "prte_elastic_mode"
run off_after "$PRUN" -n 2 --map-by node sh -c "$NODE_OF_RANK"
[ "$(sort -u "$TEST_TMP/off_after.out")" = node1 ] && pass "the DVM is unchanged" || fail "nodes: $(cat "$TEST_TMP/off_after.out")"
stop_fg_dvm

printf 'spare1 slots=2\nspare2 slots=2\nspare3 slots=2\n' >"$TEST_TMP/pool"
start_elastic_dvm 1 2 --prtemca ras_ssh_pool "$TEST_TMP/pool"
# A job that ends mid-grow, and one still running when the grow completes (the grown daemon
# learns of it: collectives over it may route through the new daemon).
mkfifo "$TEST_TMP/end1" "$TEST_TMP/end2"
"$PRUN" -n 1 --host node1 sh -c "read x <'$TEST_TMP/end1'" >/dev/null 2>&1 &
ends_mid_grow=$!
"$PRUN" -n 1 --host node1 sh -c "read x <'$TEST_TMP/end2'" >/dev/null 2>&1 &
still_running=$!
wait_for_line "$TEST_TMP/prte.err" "@2 -> PRTE_JOB_STATE_RUNNING" || fail "the two jobs did not start"
gate gate1
run g "$PALLOC" --do-not-wait -w gate1
echo end >"$TEST_TMP/end1"
wait "$ends_mid_grow" && pass "a job ended during the grow" || fail "the job ending mid-grow failed"
open_gate gate1
run ready "$PALLOC" --status alloc-1
t=0; while ! grep -q ": ready" "$TEST_TMP/ready.out" && [ $t -lt 100 ]; do run ready "$PALLOC" --status alloc-1; sleep 0.1; t=$((t + 1)); done
expect_line ready out "alloc-1: ready"
wait_for_line "$TEST_TMP/prte.err" "^\[gate1\].*job .*@[12]: 0 of 1 process(es) here" &&
    pass "the grown daemon learned the job already running" || fail "gate1 was not told of the running job"
echo end >"$TEST_TMP/end2"
wait "$still_running" && pass "the job running across the grow ended well" || fail "the job running across the grow failed"

# --add-host and --add-hostfile on a job.
run add "$PRUN" -n 2 --add-host node5:2 --host node5 sh -c "$NODE_OF_RANK"
expect_status add 0
[ "$(sort -u "$TEST_TMP/add.out")" = node5 ] && pass "--add-host grew the DVM, and the job ran there" ||
    fail "--add-host job: $(cat "$TEST_TMP/add.out" "$TEST_TMP/add.err")"
echo "node6 slots=1" >"$TEST_TMP/more"
run addf "$PRUN" -n 1 --add-hostfile "$TEST_TMP/more" --host node6 sh -c "$NODE_OF_RANK"
expect_status addf 0
expect_line addf out node6

# The ssh pool: -N lends spare hosts; a release spanning two modules returns only the pool's.
run pool "$PALLOC" -N 2 --request-id two
expect_status pool 0
expect_line pool out "ras ssh; 2 node(s) up: spare1, spare2"
run toomany "$PALLOC" -N 5
expect_status toomany 1
expect_line toomany err "the ssh pool ($TEST_TMP/pool) has 1 spare host(s), 5 asked for"
run span "$PALLOC" --shrink alloc-2 -w spare1,node5
expect_status span 0
grep -q "ras: ssh: 1 host(s) back in the pool: spare1; 2 spare" "$TEST_TMP/prte.err" &&
    pass "ras/ssh took back spare1 only" || fail "ras/ssh's take-back: $(grep 'back in the pool' "$TEST_TMP/prte.err")"
run again "$PALLOC" -N 2
expect_status again 0
expect_line again out "2 node(s) up: spare1, spare3"

# Bad input: each a clear error, the DVM unchanged.
run zero "$PALLOC" -N 0
expect_line zero err "must ask for nodes"
run garbage "$PALLOC" -w 'node[1-'
expect_line garbage err "bad node list 'node[1-'"
run master "$PALLOC" --shrink initial -w "$(hostname)"
expect_line master err "the DVM's master runs there"
run unknown "$PALLOC" --shrink initial -w nosuchnode
expect_line unknown err "cannot release nosuchnode: not in the DVM"
run twice "$PALLOC" --shrink initial -w node1,node1
expect_line twice err "it is named twice"
run final "$PRUN" -n 1 --host node1 sh -c "$NODE_OF_RANK"
expect_status final 0
stop_fg_dvm
exit $failures
