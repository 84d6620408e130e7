# Real PMIx clients under the DVM (test/clients): job, node and proc information, put/fence/get
# across ranks, PMIx_Abort, PMIx_Spawn from a client, and a single-node PMIx group.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_dvm

run jobinfo "$PRUN" -n 3 --map-by :OVERSUBSCRIBE "$CLIENTS/jobinfo"
expect_status jobinfo 0
for r in 0 1 2; do
    expect_line jobinfo out "rank $r of 3 local $r node $r host $(hostname) app 0"
done

run putget "$PRUN" -n 3 --map-by :OVERSUBSCRIBE "$CLIENTS/putget"
expect_status putget 0
expect_line putget out "putget ok size 3"

# Rank 1 aborts with status 7 while the others wait in a fence: the job ends with 7, the message
# names the rank and the reason, and no rank is left behind.
run abort "$PRUN" -n 3 --map-by :OVERSUBSCRIBE "$CLIENTS/abort"
expect_status abort 7
expect_line abort err "rank 1"
expect_line abort err "test abort"

# The parent and its 2 children on this node need :OVERSUBSCRIBE on a machine of fewer than 3 cores.
run spawn "$PRUN" -n 1 "$CLIENTS/spawn" --oversubscribe
expect_status spawn 0
expect_line spawn out "spawn ok child"

# A group of the whole job (single node): every member gets the same context id.
run group "$PRUN" -n 3 --map-by :OVERSUBSCRIBE "$CLIENTS/group"
expect_status group 0
[ "$(grep -c '^group ok rank' "$TEST_TMP/group.out")" -eq 3 ] && pass "3 members constructed and destructed" ||
    fail "group: $(cat "$TEST_TMP/group.out")"
[ "$(awk '/^group ok/ {print $NF}' "$TEST_TMP/group.out" | sort -u | wc -l)" -eq 1 ] &&
    pass "one context id for the group" || fail "members got different context ids: $(cat "$TEST_TMP/group.out")"

run still "$PRUN" -n 1 echo still-alive
expect_line still out "still-alive"
if [ -z "$(dvm_leftovers | grep -v prte)" ]; then pass "no stray processes"; else fail "stray processes: $(dvm_leftovers)"; fi

finish
