#!/bin/sh
# Autoscaling and jobs that name their hosts (issue 28): a job whose --host names a host the DVM
# has not got waits while the DVM borrows exactly that host (a grow by name, as palloc -w), then
# runs there; one naming a host that cannot join (the test-bed's unreachable1 fails as ssh does)
# ends with the grow's cause; a job naming only the DVM's own nodes is mapped as before.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
. "$PRTE_SRCDIR/test/integration/autoscale_lib.sh"

start_autoscale_dvm 'spare1 slots=2\nspare2 slots=2\nspare3 slots=2\n'

run named timeout -k 5 60 "$PRUN" -n 2 --host spare2:2 sh -c "$NODE_OF_RANK"
expect_status named 0
[ "$(sort "$TEST_TMP/named.out" | tr '\n' ' ')" = "spare2 spare2 " ] && pass "the job ran on the host it named, borrowed" ||
    fail "the named job: $(cat "$TEST_TMP/named.out" "$TEST_TMP/named.err")"
grep -q "autoscale: growing onto spare2 (alloc-1) for job" "$TEST_TMP/prte.err" &&
    pass "the DVM borrowed exactly the named host" || fail "the grow: $(grep 'autoscale:' "$TEST_TMP/prte.err")"

run nosuch timeout -k 5 60 "$PRUN" -n 1 --host unreachable1 hostname
expect_status nosuch 1
grep -q "was waiting for the DVM to grow and is aborted: .*unreachable1" "$TEST_TMP/nosuch.err" &&
    pass "a host that cannot join: the job ends with the grow's cause" ||
    fail "the job naming an unreachable host: $(cat "$TEST_TMP/nosuch.err")"

run own "$PRUN" -n 1 --host node1 hostname
expect_status own 0
stop_fg_dvm
finish
