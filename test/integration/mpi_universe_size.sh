#!/bin/sh
# MPI_UNIVERSE_SIZE (issue 44 item 2): every route a process reads it by answers the DVM's slots,
# as PRRTE's PMIX_UNIV_SIZE does, and all follow a grow and a shrink: PMIx (jobinfo), Open MPI's
# MPI_UNIVERSE_SIZE (mpi_names), MPICH's over PMI-1 get_universe_size (mpich_names) and PMI-2's
# universeSize (pmi_fuzz). Before, the two PMI answers were the job's own size, so an MPICH
# program sizing a spawn from MPI_UNIVERSE_SIZE spawned nothing.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
. "$PRTE_SRCDIR/test/integration/elastic_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
if [ ! -x "$CLIENTS/mpich_names" ]; then
    echo "SKIP: test/clients/mpich_names was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

start_elastic_dvm 2 2

# slots_now: the DVM's slots, summed from the allocation prun displays.
slots_now() {
    "$PRUN" --display allocation -n 1 true 2>/dev/null |
        sed -n 's/^    [^ ]*: slots=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}

# universe_is WHEN: each route, from a job of 2 ranks on two nodes, answers the DVM's slots now.
universe_is() {
    when=$1
    u=$(slots_now)
    [ "$u" -gt 2 ] && pass "$when: the DVM has $u slots, more than the job's 2" ||
        fail "$when: the DVM's slots ($u) must exceed the job's 2 for this check to mean anything"
    run "${when}_pmix" "$PRUN" -n 2 --map-by node "$CLIENTS/jobinfo" universe
    expect_status "${when}_pmix" 0
    [ "$(grep -c "^jobinfo universe $u size 2$" "$TEST_TMP/${when}_pmix.out")" = 2 ] &&
        pass "$when: PMIX_UNIV_SIZE is $u at both ranks" || fail "$when: PMIx says $(cat "$TEST_TMP/${when}_pmix.out")"
    run "${when}_pmi1" "$PRUN" -n 2 --map-by node "$CLIENTS/mpich_names" universe
    expect_status "${when}_pmi1" 0
    [ "$(grep -c "^names universe $u size 2$" "$TEST_TMP/${when}_pmi1.out")" = 2 ] &&
        pass "$when: MPICH's MPI_UNIVERSE_SIZE (PMI-1) is $u at both ranks" ||
        fail "$when: MPICH says $(cat "$TEST_TMP/${when}_pmi1.out" "$TEST_TMP/${when}_pmi1.err")"
    run "${when}_pmi2" "$PRUN" -n 2 --map-by node --mpi pmi2 "$CLIENTS/pmi_fuzz" pmi2-names none svc-$when port-$when
    expect_status "${when}_pmi2" 0
    [ "$(grep -c "^pmi2 universe=$u$" "$TEST_TMP/${when}_pmi2.out")" = 2 ] &&
        pass "$when: PMI-2 universeSize is $u at both ranks" || fail "$when: PMI-2 says $(cat "$TEST_TMP/${when}_pmi2.out")"
    if [ -x "$CLIENTS/mpi_names" ]; then
        run "${when}_ompi" "$PRUN" -n 2 --map-by node "$CLIENTS/mpi_names" universe
        expect_status "${when}_ompi" 0
        [ "$(grep -c "^names universe $u size 2$" "$TEST_TMP/${when}_ompi.out")" = 2 ] &&
            pass "$when: Open MPI's MPI_UNIVERSE_SIZE is $u at both ranks" ||
            fail "$when: Open MPI says $(cat "$TEST_TMP/${when}_ompi.out" "$TEST_TMP/${when}_ompi.err")"
    else
        echo "note: test/clients/mpi_names not built (no Open MPI mpicc): its check is left out"
    fi
}

universe_is start
before=$(slots_now)
run grow "$PALLOC" -w node3
expect_status grow 0
expect_line grow out "1 node(s) up: node3"
[ "$(slots_now)" -gt "$before" ] && pass "the grow added slots" || fail "the grow added no slots ($before)"
universe_is grown
run shrink "$PALLOC" --shrink initial -w node2
expect_status shrink 0
universe_is shrunk
stop_fg_dvm
finish
