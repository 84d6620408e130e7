#!/bin/sh
# A request a daemon relays to the master for a process of its node (PMIx_Spawn,
# PMIx_Allocation_request, PMIX_QUERY_ALLOC_STATUS, and PMIx_Lookup with PMIX_WAIT of a key nobody
# publishes, which may legitimately wait long) is answered PMIX_ERR_UNREACH when the way to
# the master is lost while it waits, instead of waiting for ever (issue 30, item 6): when the
# daemon that relayed it on is lost, and when the master itself is. The master is stopped
# (SIGSTOP) first, so that it cannot answer; the client (test/clients/relayed) writes each answer
# to a file, which is read even though the DVM's output path is gone.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

RELAYED="$PRTE_BUILDDIR/test/clients/relayed"
[ -x "$RELAYED" ] || { echo "FAIL: $RELAYED is not built (make check builds it)"; exit 1; }

# A stopped master must not stay behind if the test ends early.
cont_and_kill_master() {
    [ -n "$DVM_PID" ] || return 0
    kill -CONT "$DVM_PID" 2>/dev/null
    kill -9 "$DVM_PID" 2>/dev/null
}
trap 'cont_and_kill_master; rm -rf "$TEST_TMP"' EXIT

# requests_on_hold NAME NODE: runs the client on NODE, stops the master once the client is up, and
# lets the client make its four requests, which its daemon relays towards the stopped master.
requests_on_hold() {
    "$PRUN" -n 1 --host "$2" "$RELAYED" "$TEST_TMP/$1.go" "$TEST_TMP/$1.answers" \
        >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" &
    job=$!
    wait_for_line "$TEST_TMP/$1.out" '^relayed waiting pid' || fail "$1: the client did not start on $2"
    client=$(sed -n 's/^relayed waiting pid \([0-9]*\)$/\1/p' "$TEST_TMP/$1.out")
    kill -STOP "$DVM_PID"
    touch "$TEST_TMP/$1.go"
    # The requests leave the client's daemon at once; give them time to be on their way.
    sleep 2
    if [ -s "$TEST_TMP/$1.answers" ]; then
        fail "$1: answered while the master was stopped:"; sed 's/^/    /' "$TEST_TMP/$1.answers"
    fi
}

# each_answered NAME STATUS: the client got STATUS (as PMIx_Error_string says it) for each of its
# four requests, once.
each_answered() {
    wait_for_lines "$TEST_TMP/$1.answers" '^relayed ' 4 100
    for request in spawn allocation query lookup; do
        lines=$(grep -c "^relayed $request " "$TEST_TMP/$1.answers" 2>/dev/null)
        if [ "${lines:-0}" = 1 ] && grep -q "^relayed $request $2\$" "$TEST_TMP/$1.answers"; then
            pass "$1: the relayed $request was answered $2, once"
        else
            fail "$1: the relayed $request was not answered $2 once:"
            sed 's/^/    /' "$TEST_TMP/$1.answers" "$TEST_TMP/$1.err" 2>/dev/null
        fi
    done
}

# The daemon that relays on is lost: rml_radix 1 makes a chain, master <- daemon 1 <- daemon 2, so
# node2's requests go through daemon 1.
start_local_nodes_dvm 2 1
requests_on_hold route node2
daemons=$(dvm_daemons)
kill -9 "$(daemon_pid 1)"
each_answered route UNREACHABLE
# The master passes its daemons' stderr on: once it runs again, daemon 2's line shows, and the DVM
# ends as it does whenever a daemon is lost outside elastic mode (dvm_daemon_loss).
kill -CONT "$DVM_PID"
if wait_for_line "$TEST_TMP/prte.err" '^\[node2\] .*4 request(s) relayed to other daemons answered UNREACHABLE: daemon(s) 1 on their way lost'; then
    pass "route: daemon 2 says which requests it answered and why"
else
    fail "route: daemon 2 did not say so:"; sed 's/^/    /' "$TEST_TMP/prte.err"
fi
if wait_gone "$DVM_PID"; then pass "route: the DVM shut down"; else fail "route: the DVM is still running"; fi
cont_and_kill_master
DVM_PID=
if wait_gone $daemons $client; then pass "route: nothing left"; else fail "route: processes left"; fi
wait "$job" 2>/dev/null

# The master is lost: daemon 1 answers its requests before it kills its processes and exits.
start_local_nodes_dvm 1 1
requests_on_hold master node1
daemons=$(dvm_daemons)
kill -9 "$DVM_PID"
wait "$DVM_PID" 2>/dev/null
DVM_PID=
each_answered master UNREACHABLE
if wait_gone $daemons $client; then pass "master: the daemon and its process are gone"; else fail "master: processes left"; fi
wait "$job" 2>/dev/null
finish
