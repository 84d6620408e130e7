#!/bin/sh
# MPICH's MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name under prun (issue 44 item 3):
# PMI-1 publish_name / lookup_name / unpublish_name and PMI-2 name-publish / name-lookup /
# name-unpublish are served from the DVM's one store, the one PMIx_Publish and Open MPI use, across
# nodes: an MPICH program finds an Open MPI program's name and the other way round; a name is
# published once, and lives until it is unpublished or its publisher's job ends. Before, every one
# of these commands was answered with an error ("Invalid service name" in MPICH's test spawn/namepub).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
if [ ! -x "$CLIENTS/mpich_names" ]; then
    echo "SKIP: test/clients/mpich_names was not built (mpicc.mpich not found: apt-get install mpich libmpich-dev)"
    exit 77
fi

start_local_nodes_dvm 2 2

# publisher NAME NODE PROGRAM SERVICE PORT: a job on NODE publishing SERVICE until $TEST_TMP/go.NAME
# appears; its pid in $pid_NAME.
publisher() {
    "$PRUN" -n 1 --host "$2" "$CLIENTS/$3" publish "$4" "$5" "$TEST_TMP/go.$1" >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" &
    eval "pid_$1=\$!"
    wait_for_line "$TEST_TMP/$1.out" "names published $4" && pass "$1: $3 on $2 published $4" ||
        fail "$1: $3 did not publish $4: $(cat "$TEST_TMP/$1.out" "$TEST_TMP/$1.err")"
}
# release NAME: the publisher's job ends, well.
release() {
    touch "$TEST_TMP/go.$1"
    eval "wait \$pid_$1" && pass "$1 ended well" || fail "$1 failed: $(cat "$TEST_TMP/$1.err")"
}

publisher mpich node1 mpich_names svc-mpich port-mpich
run mpich_finds "$PRUN" -n 1 --host node2 "$CLIENTS/mpich_names" lookup svc-mpich
expect_status mpich_finds 0
expect_line mpich_finds out "names lookup svc-mpich port port-mpich"
# PMI-2 (our own client): the same name, then a whole publish, lookup, unpublish, lookup.
run pmi2 "$PRUN" -n 1 --host node2 --mpi pmi2 "$CLIENTS/pmi_fuzz" pmi2-names svc-mpich svc-pmi2 port-pmi2
expect_status pmi2 0
expect_line pmi2 out "pmi2 lookup svc-mpich rc=0 port=port-mpich value=port-mpich"
expect_line pmi2 out "pmi2 cycle publish=0 found=port-pmi2 unpublish=0 again=-1"
# A name is published once.
run duplicate "$PRUN" -n 1 --host node2 "$CLIENTS/mpich_names" publish svc-mpich other "$TEST_TMP/never"
expect_line duplicate out "names publish svc-mpich failed"
# MPICH: publish, lookup, unpublish, lookup.
run cycle "$PRUN" -n 1 --host node1 "$CLIENTS/mpich_names" cycle svc-cycle port-cycle
expect_status cycle 0
expect_line cycle out "names cycle found port-cycle then failed"

if [ -x "$CLIENTS/mpi_names" ]; then
    run ompi_finds "$PRUN" -n 1 --host node2 "$CLIENTS/mpi_names" lookup svc-mpich
    expect_status ompi_finds 0
    expect_line ompi_finds out "names lookup svc-mpich port port-mpich"
    publisher ompi node2 mpi_names svc-ompi port-ompi
    run mpich_finds_ompi "$PRUN" -n 1 --host node1 "$CLIENTS/mpich_names" lookup svc-ompi
    expect_status mpich_finds_ompi 0
    expect_line mpich_finds_ompi out "names lookup svc-ompi port port-ompi"
    release ompi
    run ompi_gone "$PRUN" -n 1 --host node1 "$CLIENTS/mpich_names" lookup svc-ompi
    expect_line ompi_gone out "names lookup svc-ompi failed"
else
    echo "note: test/clients/mpi_names not built (no Open MPI mpicc): its checks are left out"
fi

# The publisher's job ends: its name goes with it.
release mpich
run mpich_gone "$PRUN" -n 1 --host node2 "$CLIENTS/mpich_names" lookup svc-mpich
expect_status mpich_gone 0
expect_line mpich_gone out "names lookup svc-mpich failed"
stop_dvm
finish
