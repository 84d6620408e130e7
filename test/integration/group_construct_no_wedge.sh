#!/bin/sh
# Issue 14 item 1: a PMIx group construct over ranks on several nodes, on 4 local nodes with
# rml_radix 2 (8 ranks, --map-by node, PMIX_GROUP_ASSIGN_CONTEXT_ID). It used to be refused with
# PMIX_ERR_NOT_SUPPORTED through the upcall's callback, which PMIx 4.2.2 records as a group that
# only a destruct removes (src/pmix/groups/construct.cc): the next run of the same program then hung on
# every daemon, and so did pterm. Now the construct succeeds; the next run, a construct the DVM
# refuses, another construct after it, an ordinary job and pterm must all work, leaving nothing.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

# group_ok NAME COUNT: COUNT members reported success and all got one context id.
group_ok() {
    n=$(grep -c '^group ok rank' "$TEST_TMP/$1.out")
    ids=$(awk '/^group ok/ {print $NF}' "$TEST_TMP/$1.out" | sort -u | wc -l)
    if [ "$n" = "$2" ] && [ "$ids" = 1 ]; then pass "$1: $2 members, one context id"; else
        fail "$1: $n of $2 members ok, $ids distinct context ids"
        sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"
    fi
}

start_local_nodes_dvm 4 2 --prtemca pmix_server_verbose 1
daemons=$(dvm_daemons)

run first timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/group"
expect_status first 0
group_ok first 8
# The same program again: the same group id on the same daemons.
run again timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/group"
expect_status again 0
group_ok again 8

# A construct the DVM refuses (a member of no job): every rank hears an error, none waits.
run refused timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/group" --id refused-group --member no-such-job:0 \
    --expect-error
expect_status refused 0
[ "$(grep -c '^group refused rank' "$TEST_TMP/refused.out")" = 8 ] && pass "all 8 ranks heard the refusal" ||
    fail "refusal: $(cat "$TEST_TMP/refused.out" "$TEST_TMP/refused.err")"
if wait_for_line "$TEST_TMP/prte.err" "group refused-group construct over .* failed: member no-such-job:0"; then
    pass "the refusal is logged with its reason"; else fail "no log line names the refused member"; fi

# After it: another group, an ordinary job, and pterm.
run after timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/group" --id after-refusal
expect_status after 0
group_ok after 8
run jobinfo timeout 60 "$PRUN" -n 8 --map-by node "$CLIENTS/jobinfo"
expect_status jobinfo 0

run pterm timeout 60 "$PTERM"
expect_status pterm 0
if wait_gone $daemons; then pass "every prted exited after pterm"; else
    fail "prted left after pterm: $(for p in $daemons; do alive "$p" && echo "$p"; done)"
    for p in $daemons; do kill -9 "$p" 2>/dev/null; done
fi
wait "$DVM_PID" 2>/dev/null
DVM_PID=
finish
