#!/bin/sh
# "localhost" in --host or a hostfile is the node prte runs on, as in PRRTE and mpirun: no daemon
# is launched for it (it was reached over ssh, issue 14, item 8), its slot count is the master
# node's, and prun --host localhost runs there.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
JOBINFO="$PRTE_BUILDDIR/test/clients/jobinfo"
here=$(hostname)

# An agent that cannot launch anything: the DVM starts only if no daemon is launched for localhost.
start_dvm --host localhost:2 --prtemca plm_ssh_agent /bin/false
pass "--host localhost:2 starts a DVM without launching a daemon"
run two "$PRUN" -n 2 --host localhost "$JOBINFO"
expect_status two 0
[ "$(grep -c " host $here app " "$TEST_TMP/two.out")" = 2 ] && pass "prun --host localhost runs on $here" ||
    fail "prun --host localhost: $(cat "$TEST_TMP/two.out")"
run three "$PRUN" -n 3 /bin/true
expect_status three 1
expect_line three err "2 available on $here (2)"
stop_dvm

# A hostfile's localhost line, beside a local test-bed node: one daemon launched, for node1 only.
printf 'localhost slots=1\nnode1 slots=1\n' >"$TEST_TMP/hosts"
start_dvm_foreground --hostfile "$TEST_TMP/hosts" --prtemca plm_ssh_agent "$LOCAL_AGENT" \
    --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo --prtemca plm_base_verbose 5
expect_line prte err "daemon 1 on node1:"
expect_no_line prte err "on localhost"
run spread "$PRUN" -n 2 --map-by node "$JOBINFO"
expect_status spread 0
expect_line spread out " host $here app "
expect_line spread out " host node1 app "
stop_dvm

finish
