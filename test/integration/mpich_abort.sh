#!/bin/sh
# An MPICH program that ends badly under prun ends its whole job as an aborted job ends, with one
# message naming the rank: MPI_Abort (PMI abort: the job's status is the caller's), and a rank that
# returns from main without MPI_Finalize (it initialised PMI and never finalized it). The DVM
# carries on and runs the next job.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
MPICH_HELLO="$PRTE_BUILDDIR/test/clients/mpich_hello"
if [ ! -x "$MPICH_HELLO" ]; then
    echo "SKIP: test/clients/mpich_hello was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

start_dvm

run abort "$PRUN" -n 4 --map-by :OVERSUBSCRIBE --timeout 60 "$MPICH_HELLO" abort
expect_status abort 3
expect_line abort err "prun: error: rank 1 of job"
expect_line abort err "called PMI abort with status 3"
expect_no_line abort out "mpich ok"

run nofinalize "$PRUN" -n 3 --map-by :OVERSUBSCRIBE --timeout 60 "$MPICH_HELLO" nofinalize
expect_status nofinalize 1
expect_line nofinalize err "exited without finalizing PMI"
expect_line nofinalize err "rank 1 of job"

run after "$PRUN" -n 2 "$MPICH_HELLO"
expect_status after 0
expect_line after out "mpich ok size 2 sum 1 ring 2"

stop_dvm
finish
