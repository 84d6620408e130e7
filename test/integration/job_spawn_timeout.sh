#!/bin/sh
# prun --spawn-timeout fails a job whose processes have not all started in time, with exit status
# 110 and a message saying so (issue 41, item 4). The job cannot start: the DVM holds it at its
# launch boundary (prte_test_hold_launch) until a size change that never comes, so its time runs
# out whatever the machine's load.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"

start_elastic_dvm 2 2 --prtemca prte_test_hold_launch 1
run held timeout 60 "$PRUN" -n 2 --map-by node --spawn-timeout 2 sh -c 'echo started'
expect_status held 110
grep -q "@1 -> PRTE_JOB_STATE_WAITING_FOR_DAEMONS (held at the launch boundary" "$TEST_TMP/prte.err" &&
    pass "the job was held at the launch boundary" || fail "job @1 was not held at LAUNCH_APPS"
expect_line held err "its processes had not all started within 2 seconds (--spawn-timeout)"
expect_no_line held out "started"
wait_for_line "$TEST_TMP/prte.err" "@1 -> PRTE_JOB_STATE_FAILED_TO_START" && pass "the DVM failed the job" ||
    fail "job @1 did not end in FAILED_TO_START"
stop_fg_dvm
finish
