#!/bin/sh
# Issue 44 (tests): MPICH's own test programs for spawning and name publishing (test/mpi/spawn of
# Debian's mpich source, fetched by contrib/fetch-mpich-tests.sh from contrib/install-deps.sh),
# programs we did not write, run under prun on a DVM with more slots than their np:
#  - the spawn tests size their spawn from MPI_UNIVERSE_SIZE (mtest.c, MTestSpawnPossible), so
#    with the universe the DVM's slots they try to spawn, and fail inside MPICH as they do under
#    mpiexec.hydra (Debian's 4.0.2 opens a port before its PMI spawn, and cannot); told the job's
#    own size, they spawned nothing and printed " No Errors";
#  - the PMI conversation (pmi_base_verbose 20) shows get_universe_size answered with the slots;
#  - namepub publishes, looks up and unpublishes a name, served from the DVM's publish store.
# The PMI spawn itself is tested with our own client (pmi_spawn).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
TESTS=${PRTE_MPICH_TESTS:-$PRTE_SRCDIR/_deps/mpich-tests}
if [ ! -f "$TESTS/spawn/spawn1.c" ]; then
    fail "MPICH's tests are not in $TESTS: run sh contrib/fetch-mpich-tests.sh (contrib/install-deps.sh does)"
    finish
fi
if ! command -v mpicc.mpich >/dev/null; then
    fail "mpicc.mpich is not installed (apt-get install mpich libmpich-dev; contrib/install-deps.sh does)"
    finish
fi

# Built as MPICH's test/mpi/Makefile builds them: each program with util/mtest*.c (single-threaded).
BIN="$TEST_TMP/bin"
mkdir -p "$BIN"
MTEST="$TESTS/util/mtest.c $TESTS/util/mtest_common.c $TESTS/util/mtest_single.c"
for t in spawn1 spawnminfo1 namepub; do
    # shellcheck disable=SC2086
    mpicc.mpich -O0 -w -I"$TESTS/include" -o "$BIN/$t" "$TESTS/spawn/$t.c" $MTEST >"$TEST_TMP/cc.$t" 2>&1 ||
        fail "cannot build $t: $(head -5 "$TEST_TMP/cc.$t")"
done

# One node of 4 slots: more than any of these programs' np (1 and 2).
start_local_nodes_dvm 1 2 --prtemca prte_set_slots 4 --prtemca pmi_base_verbose 20
trap 'stop_dvm; rm -rf "$TEST_TMP"' EXIT

# spawn_fails NAME: the spawn test tried to spawn (its universe was larger than its np) and MPICH
# failed it inside MPID_Comm_spawn_multiple, as under mpiexec.hydra, rather than passing without
# spawning; the PMI conversation shows it asked for the universe and was told the DVM's 4 slots.
spawn_fails() {
    run "$1" "$PRUN" --timeout 60 -n 1 "$BIN/$1"
    [ "$(status_of "$1")" = 15 ] && pass "$1 exits 15, MPICH's status for its failed spawn" ||
        { fail "$1 exited $(status_of "$1"), not 15"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; }
    expect_no_line "$1" out "No Errors"
    expect_line "$1" err "Fatal error in internal_Comm_spawn"
    expect_line "$1" err "MPID_Comm_spawn_multiple(86)"
    expect_line "$1" err ": Error in spawn call"
    ns=$(sed -n 's/^prun: error: rank 0 of job \([^ ]*\) on node .*/\1/p' "$TEST_TMP/$1.err")
    if grep -q "pmi: job $ns rank 0: PMI-1 get_universe_size$" "$TEST_TMP/prte.err" &&
        grep -q "pmi: job $ns rank 0: PMI-1 answer cmd=universe_size size=4 rc=0$" "$TEST_TMP/prte.err"; then
        pass "$1 (job $ns): get_universe_size answered with the DVM's 4 slots"
    else
        fail "$1 (job '$ns'): no get_universe_size answered 4"
        grep "pmi: job $ns " "$TEST_TMP/prte.err" | sed 's/^/    /'
    fi
}
spawn_fails spawn1
spawn_fails spawnminfo1

# The same program under MPICH's own launcher fails the same way (hydra's universe is larger
# than 1 too).
run hydra timeout 60 mpiexec.hydra -n 1 "$BIN/spawn1"
[ "$(status_of hydra)" = 15 ] && pass "under mpiexec.hydra spawn1 exits 15 too" ||
    fail "under mpiexec.hydra spawn1 exited $(status_of hydra)"
expect_line hydra err "MPID_Comm_spawn_multiple(86): Error in spawn call"

# namepub: publish, lookup and unpublish across two ranks.
run namepub "$PRUN" --timeout 60 -n 2 "$BIN/namepub"
expect_status namepub 0
expect_line namepub out " No Errors"

stop_dvm
finish
