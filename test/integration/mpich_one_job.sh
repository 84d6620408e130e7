#!/bin/sh
# Debian's MPICH 4.0 (mpicc.mpich) under plain prun: one job of N ranks (not N singletons), through
# the PMI-1 wire protocol the daemons serve (pmi/simple), with no option; Open MPI programs and
# PMIx clients run as before beside it; prun --mpi chooses what each process is given.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
MPICH_HELLO="$CLIENTS/mpich_hello"
if [ ! -x "$MPICH_HELLO" ]; then
    echo "SKIP: test/clients/mpich_hello was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

# expect_singletons NAME: the MPICH hello of run NAME ran as two singletons ("rank 0 of 1" twice).
expect_singletons() {
    expect_status "$1" 0
    [ "$(grep -c 'mpich rank 0 of 1' "$TEST_TMP/$1.out")" = 2 ] && pass "$1: two singletons" ||
        fail "$1: expected two 'rank 0 of 1': $(cat "$TEST_TMP/$1.out")"
}

start_dvm

run four "$PRUN" -n 4 --map-by :OVERSUBSCRIBE "$MPICH_HELLO"
expect_status four 0
expect_line four out "mpich ok size 4 sum 6 ring 4"
for r in 0 1 2 3; do expect_line four out "mpich rank $r of 4"; done

# Unaffected: an Open MPI program and a PMIx client, each still one job.
if [ -x "$CLIENTS/mpi_hello" ]; then
    run ompi "$PRUN" -n 2 "$CLIENTS/mpi_hello"
    expect_status ompi 0
    expect_line ompi out "mpi ok size 2"
else
    echo "note: test/clients/mpi_hello not built (no Open MPI mpicc): its check is left out"
fi
run pmix "$PRUN" -n 2 "$CLIENTS/putget"
expect_status pmix 0
expect_line pmix out "putget ok size 2"

# What each choice gives a process: PMI_FD (PMI) and PMIX_NAMESPACE (PMIx).
gives() {
    run "env_$1" "$PRUN" -n 1 ${2:+--mpi "$2"} sh -c 'echo "pmi=${PMI_FD:+yes} pmix=${PMIX_NAMESPACE:+yes}"'
    expect_status "env_$1" 0
    expect_line "env_$1" out "$3"
}
gives default "" "pmi=yes pmix=yes"
gives pmix pmix "pmi= pmix=yes"
gives pmi1 pmi1 "pmi=yes pmix="
gives pmi2 pmi2 "pmi=yes pmix="
gives none none "pmi= pmix="

# --mpi pmix: MPICH finds no PMI and runs as singletons, as before this existed.
run singletons "$PRUN" -n 2 --mpi pmix "$MPICH_HELLO"
expect_singletons singletons
run pmi1 "$PRUN" -n 2 --mpi pmi1 "$MPICH_HELLO"
expect_status pmi1 0
expect_line pmi1 out "mpich ok size 2 sum 1 ring 2"

# PMI-2's wire protocol (our own client: Debian's MPICH speaks PMI-1), with and without --mpi pmi2.
run pmi2 "$PRUN" -n 2 --mpi pmi2 "$CLIENTS/pmi_fuzz" pmi2
expect_status pmi2 0
expect_line pmi2 out "pmi2 rank 0 of 2 next=v1;x mapping=(vector,(0,1,2))"
expect_line pmi2 out "pmi2 rank 1 of 2 next=v0;x"
run pmi2_default "$PRUN" -n 2 "$CLIENTS/pmi_fuzz" pmi2
expect_status pmi2_default 0
expect_line pmi2_default out "pmi2 rank 1 of 2 next=v0;x"
# Slurm's PMI-2 client library (libpmi2-0-dev), when it was there at build time.
if [ -x "$CLIENTS/pmi2_hello" ]; then
    run pmi2lib "$PRUN" -n 3 --map-by :OVERSUBSCRIBE "$CLIENTS/pmi2_hello"
    expect_status pmi2lib 0
    expect_line pmi2lib out "pmi2lib rank 2 of 3 next=v0 node=from-rank-0 mapping=(vector,(0,1,3))"
    run pmi2lib_abort "$PRUN" -n 2 --mpi pmi2 "$CLIENTS/pmi2_hello" abort
    expect_status pmi2lib_abort 1
    expect_line pmi2lib_abort err "called PMI abort with status 1: pmi2lib aborts"
else
    echo "note: test/clients/pmi2_hello not built (no slurm/pmi2.h): its checks are left out"
fi
# PMI-1 spawn (MPI_Comm_spawn's commands; Debian's MPICH 4.0.2 itself fails MPI_Comm_spawn before
# it asks, under its own mpiexec too): a child job that reads its parent's pre-put key, and a spawn
# that cannot be placed answered with an error the caller sees.
run spawn "$PRUN" -n 1 --map-by :OVERSUBSCRIBE "$CLIENTS/pmi_fuzz" spawn
expect_status spawn 0
expect_line spawn out "spawn parent 0 rc=0"
expect_line spawn out "spawn child 1 port=port-of-0"
run spawn_refused "$PRUN" -n 1 --map-by :NOOVERSUBSCRIBE --host localhost:1 "$CLIENTS/pmi_fuzz" spawn
expect_line spawn_refused out "spawn parent 0 rc=-1"
expect_line spawn_refused err "not enough slots"
# A process speaking the other version than the one asked for is refused, naming both.
run wrong_version "$PRUN" -n 1 --mpi pmi1 "$CLIENTS/pmi_fuzz" pmi2
expect_status wrong_version 1
expect_line wrong_version err "PMI command 'init' refused: the job was started with --mpi pmi1, and the process speaks PMI-2"

run bad_choice "$PRUN" -n 1 --mpi pmi3 true
expect_status bad_choice 2
expect_line bad_choice err "--mpi pmi3: expected pmix, pmi1, pmi2 or none"

stop_dvm

# A site that drops the PMI server: MPICH programs are singletons again, and asking for PMI is
# refused with the reason.
start_dvm --prtemca pmi ^simple
run dropped "$PRUN" -n 2 "$MPICH_HELLO"
expect_singletons dropped
run dropped_pmi1 "$PRUN" -n 1 --mpi pmi1 "$MPICH_HELLO"
expect_status dropped_pmi1 1
expect_line dropped_pmi1 err "the job asks for --mpi pmi1, and this DVM serves no PMI"
stop_dvm
finish
