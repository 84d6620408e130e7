# Debian's Open MPI 4.1 (openmpi-bin) direct-launched by prun: one job of N ranks, not N singletons
# (PRRTE 3.0 on this PMIx ran "rank 0 of 1" twice). odls/default gives Open MPI the environment its
# launch detection recognises (see docs/user-guide.md, "Open MPI"). Skips when mpicc was not found
# at build time; .ci/run installs openmpi-bin and libopenmpi-dev so that CI runs it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"
MPI_HELLO="$PRTE_BUILDDIR/test/clients/mpi_hello"
if [ ! -x "$MPI_HELLO" ]; then
    echo "SKIP: test/clients/mpi_hello was not built (mpicc not found: apt-get install libopenmpi-dev)"
    exit 77
fi

start_dvm

run two "$PRUN" -n 2 "$MPI_HELLO"
expect_status two 0
expect_line two out "mpi ok size 2"

run four "$PRUN" -n 4 --map-by :OVERSUBSCRIBE "$MPI_HELLO"
expect_status four 0
expect_line four out "mpi ok size 4"
[ "$(grep -c 'mpi ok' "$TEST_TMP/four.out")" -eq 1 ] && pass "one job, one report" ||
    fail "expected one report from rank 0: $(cat "$TEST_TMP/four.out")"

finish
