#!/bin/sh
# Issue 13 item 3: PMIX_GROUP_CONSTRUCT_ABORT ends a collective construct everywhere. One rank does
# not construct: it raises PMIX_GROUP_CONSTRUCT_ABORT (PMIX_GROUP_ID, the members as its custom
# range) once the others are in the construct, and every other rank's construct returns
# PMIX_GROUP_CONSTRUCT_ABORT, on every node; then all construct the same group again, which must
# work (every daemon counted the aborted construct alike). Without the abort the others would wait
# for the aborting rank for ever. 3 local nodes (rml_radix 2).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# abort_case NAME NP ABORTER WAIT-NODES...: NP ranks (--map-by node), rank ABORTER aborts once
# every WAIT-NODE has contributed its share of the construct.
abort_case() {
    name=$1
    np=$2
    aborter=$3
    shift 3
    timeout 120 "$PRUN" -n "$np" --map-by node "$CLIENTS/group" --id "$name" --abort-rank "$aborter" \
        --late-until "$TEST_TMP/$name.go" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job=$!
    for node in "$@"; do
        wait_for_line "$TEST_TMP/prte.err" "^\[$node\].*allgather .*group $name construct#1: .*from this daemon" ||
            fail "$name: $node never contributed"
    done
    : >"$TEST_TMP/$name.go"
    wait "$job"
    status=$?
    if [ $status = 0 ]; then pass "$name: the job ended normally, no hang"; else
        fail "$name: prun exited $status (124: it hung)"; sed 's/^/    /' "$TEST_TMP/$name.out" "$TEST_TMP/$name.err"; fi
    n=$(grep -c "^group refused rank [0-9]*: GROUP-CONSTRUCT-ABORT$" "$TEST_TMP/$name.out")
    [ "$n" = $((np - 1)) ] && pass "$name: all $n other ranks' construct returned PMIX_GROUP_CONSTRUCT_ABORT" ||
        fail "$name: $n of $((np - 1)) constructs returned it"
    n=$(grep -c "^group ok rank" "$TEST_TMP/$name.out")
    [ "$n" = "$np" ] && pass "$name: the same group constructed again afterwards, by all $np ranks" ||
        fail "$name: $n of $np ranks constructed it again"
    job_holds_nothing "$name" \
        "$(grep -o "allgather [^ |]*|group $name construct" "$TEST_TMP/prte.err" | head -1 | sed 's/allgather \([^:]*\):.*/\1/')"
}

# The aborting rank 2 is alone on node3, which has no construct under way: it counts the aborted
# one as done from the abort's range.
abort_case alone 3 2 node1 node2
grep -q "^\[node3\].*group alone construct#1: cancelled before this daemon took part" "$TEST_TMP/prte.err" &&
    pass "alone: node3 counted the aborted construct" || fail "alone: node3 did not count it"
for node in node1 node2; do
    grep -q "^\[$node\].*group alone construct: aborted by a member (PMIX_GROUP_CONSTRUCT_ABORT); ending the DVM's collective" \
        "$TEST_TMP/prte.err" && pass "alone: $node ended its part" || fail "alone: $node did not end its part"
done

# The aborting rank 3 shares node1 with rank 0, which called: PMIx there never handed the construct
# to the DVM (rank 3 had not called), so node1 answers rank 0 itself.
abort_case beside 4 3 node2 node3
grep -q "^\[node1\].*group beside construct: aborted by a member (PMIX_GROUP_CONSTRUCT_ABORT); 1 caller(s) on this node answered" \
    "$TEST_TMP/prte.err" && pass "beside: node1 answered rank 0 itself" || fail "beside: node1 did not answer rank 0"
finish
