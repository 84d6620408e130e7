#!/bin/sh
# Issue 46 item 10: two group constructs with different ids over the same processes, at the same
# time. RFC 0033 (PMIx_Group_construct): "Processes may engage in multiple simultaneous group
# construct operations as desired so long as each is provided with a unique group ID", and its
# implementation note warns that a host keying the collective on the processes alone makes such
# constructs conflict. The DVM keys it on the group id and the operation (construct.cc,
# collective_id()), as PMIx 4.2.2's server keys its trackers on the id.
#
# 3 local nodes, 6 ranks by node (two on each, so that each server gathers two local callers as
# well as the DVM gathering three nodes). Every rank starts PMIx_Group_construct_nb of "<id>-a" and
# "<id>-b" with a context id, even ranks a first and odd ranks b first (blocking calls in opposite
# orders would deadlock the application itself), waits for both, then destructs both the same way.
# Each group must complete on every rank with one context id of its own, the two ids different, no
# construct refused or left unanswered; 5 rounds, members as the whole job and listed by rank.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# check NAME ID: both groups of round NAME complete on all 6 ranks, each with one context id.
check() {
    out="$TEST_TMP/$1.out"
    ida=$(sed -n "s/^group simultaneous rank [0-9] group $2-a ctxid \([0-9]*\)$/\1/p" "$out" | sort -u)
    idb=$(sed -n "s/^group simultaneous rank [0-9] group $2-b ctxid \([0-9]*\)$/\1/p" "$out" | sort -u)
    na=$(grep -c "^group simultaneous rank [0-9] group $2-a ctxid [0-9]*$" "$out")
    nb=$(grep -c "^group simultaneous rank [0-9] group $2-b ctxid [0-9]*$" "$out")
    nd=$(grep -c "^group simultaneous destructed rank [0-9] group $2-[ab]$" "$out")
    if [ "$(status_of "$1")" = 0 ] && [ "$na" = 6 ] && [ "$nb" = 6 ] && [ "$nd" = 12 ] &&
        [ "$(echo "$ida" | wc -w)" = 1 ] && [ "$(echo "$idb" | wc -w)" = 1 ] && [ "$ida" != "$idb" ]; then
        pass "$1: $2-a (context id $ida) and $2-b (context id $idb) both constructed and destructed on all 6 ranks"
        echo "$ida $idb" >>"$TEST_TMP/ids"
    else
        fail "$1: exit $(status_of "$1"), $na and $nb of 6 constructed, $nd of 12 destructed, context ids '$ida' / '$idb'"
        sed 's/^/    /' "$out" "$TEST_TMP/$1.err"
    fi
}

: >"$TEST_TMP/ids"
for round in 1 2 3 4 5; do
    by=
    [ $((round % 2)) = 0 ] && by=--by-rank
    run "round$round" timeout 90 "$PRUN" -n 6 --map-by node "$CLIENTS/group" --id "s$round-a" \
        --simultaneous "s$round-b" $by
    check "round$round" "s$round"
done
# RFC 0033: a context id is unique for the DVM's life; no two groups shared one.
total=$(tr ' ' '\n' <"$TEST_TMP/ids" | grep -c .)
distinct=$(tr ' ' '\n' <"$TEST_TMP/ids" | grep . | sort -u | wc -l)
[ "$total" = 10 ] && [ "$distinct" = 10 ] && pass "10 groups, 10 distinct context ids" ||
    fail "context ids over the rounds: $(tr '\n' ' ' <"$TEST_TMP/ids")"
# The two were under way together: on some daemon both of a round's constructs had been handed to
# the host before either was done (else this test proves nothing about simultaneous constructs).
overlapped=$(awk '
    match($0, /group s[0-9]+-[ab] construct(: done| over)/) {
        node = $1; split(substr($0, RSTART + 6), w, /[ -]/); round = node " " w[1]
        if ($0 ~ /construct over/) { if (++inflight[round] == 2) both[w[1]] = 1 } else inflight[round]--
    }
    END { n = 0; for (r in both) n++; print n }' "$TEST_TMP/prte.err")
[ "$overlapped" -ge 1 ] && pass "in $overlapped of 5 rounds a daemon had both constructs under way at once" ||
    fail "no daemon ever had both constructs of a round under way at once"
if grep -q "was lost\|Segmentation fault" "$TEST_TMP/prte.err"; then
    fail "a daemon was lost: $(grep "was lost\|Segmentation fault" "$TEST_TMP/prte.err" | head -3)"
else pass "no daemon was lost"; fi
# Each job's release is logged by the master and the 3 daemons, a little after prun returns.
wait_for_lines "$TEST_TMP/prte.err" "released; still held" 20 100
nheld=$(grep -c "released; still held" "$TEST_TMP/prte.err")
held=$(grep "released; still held" "$TEST_TMP/prte.err" | grep -v ", 0 collective(s),")
[ "$nheld" -ge 20 ] && [ -z "$held" ] && pass "no collective left on any daemon after the jobs" ||
    fail "collectives held after the jobs ($nheld releases logged): $held"
run after timeout 60 "$PRUN" -n 6 --map-by node "$CLIENTS/group" --id after
expect_status after 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/after.out")" = 6 ] && pass "a later group job runs" ||
    fail "after: $(cat "$TEST_TMP/after.out" "$TEST_TMP/after.err")"
finish
