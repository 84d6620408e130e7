#!/bin/sh
# prun --mca as mpirun users type it (issue 41, item 1): each name reaches whoever reads it, Open MPI
# (OMPI_MCA_), PMIx (PMIX_MCA_) or prte (PRTE_MCA_), by its prefix; an Open MPI 4.1 program under
# --mca btl self fails as under mpirun, and --mca btl tcp,self runs over TCP. prterun gives the DVM
# only the names that are prte's.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"
MPI_HELLO="$PRTE_BUILDDIR/test/clients/mpi_hello"
if [ ! -x "$MPI_HELLO" ]; then
    echo "SKIP: test/clients/mpi_hello was not built (mpicc not found: apt-get install libopenmpi-dev)"
    exit 77
fi
unset OMPI_MCA_PREFIXES

start_dvm

# What reaches a process: its environment, one variable per line.
run env "$PRUN" -n 1 --mca btl self -mca ptl_base_verbose 1 --gmca plm_base_verbose 2 \
    --mca hwloc_base_binding_policy none --mca pmix_server_verbose 1 --mca foo_bar 1 env
expect_status env 0
expect_line env out "OMPI_MCA_btl=self"
expect_line env out "PMIX_MCA_ptl_base_verbose=1"
expect_line env out "PRTE_MCA_plm_base_verbose=2"
expect_line env out "OMPI_MCA_hwloc_base_binding_policy=none"
expect_line env out "PRTE_MCA_hwloc_base_binding_policy=none"
expect_line env out "PRTE_MCA_pmix_server_verbose=1"
expect_no_line env out "PRTE_MCA_btl="
expect_no_line env out "OMPI_MCA_plm_base_verbose"
expect_no_line env out "foo_bar"
expect_line env err "prun: note: --mca foo_bar: no parameter of Open MPI 4.1, PMIx or prte starts with 'foo'"

# OMPI_MCA_PREFIXES names Open MPI's prefixes instead of the built-in list.
OMPI_MCA_PREFIXES=foo_ run prefixes "$PRUN" -n 1 --mca foo_bar 1 env
expect_line prefixes out "OMPI_MCA_foo_bar=1"
expect_no_line prefixes err "foo_bar"

# --personality prte: every name prte's, as before routing; --omca: Open MPI's whatever its name.
run personality "$PRUN" -n 1 --personality prte --mca btl self --omca plm_thing 3 env
expect_line personality out "PRTE_MCA_btl=self"
expect_line personality out "OMPI_MCA_plm_thing=3"
expect_no_line personality out "OMPI_MCA_btl="

# -am and --tune files; a bad line names the file and the line.
printf '# an Open MPI parameter file\nbtl = self,vader\n' >"$TEST_TMP/params"
printf -- '-mca btl_base_verbose 30 -x TUNED=yes\n' >"$TEST_TMP/tune"
printf -- '-mca btl self\n--np 4\n' >"$TEST_TMP/badtune"
run files "$PRUN" -n 1 -am "$TEST_TMP/params" --tune "$TEST_TMP/tune" env
expect_line files out "OMPI_MCA_btl=self,vader"
expect_line files out "OMPI_MCA_btl_base_verbose=30"
expect_line files out "TUNED=yes"
run badtune "$PRUN" -n 1 --tune "$TEST_TMP/badtune" env
expect_status badtune 2
expect_line badtune err "$TEST_TMP/badtune:2: '--np': a tune file holds only"
run badpersonality "$PRUN" -n 1 --personality mpich env
expect_status badpersonality 2
expect_line badpersonality err "--personality mpich: expected ompi or prte"

# Open MPI reads them: no path between two ranks with the self BTL alone (mpirun says the same),
# and the TCP BTL is the one initialised under tcp,self.
run btl_self "$PRUN" -n 2 --mca btl self "$MPI_HELLO"
expect_status btl_self 1
expect_line btl_self err "BTLs attempted: self"
run btl_tcp "$PRUN" -n 2 --mca btl tcp,self --mca btl_base_verbose 30 --mca btl_tcp_if_include lo "$MPI_HELLO"
expect_status btl_tcp 0
expect_line btl_tcp out "mpi ok size 2"
expect_line btl_tcp err "select: initializing btl component tcp"
run btl_vader "$PRUN" -n 2 --mca btl vader,self --mca btl_base_verbose 30 "$MPI_HELLO"
expect_status btl_vader 0
expect_no_line btl_vader err "select: initializing btl component tcp"
stop_dvm

# prterun: an Open MPI name is the job's only (prte warned of an unknown 'btl' before); a prte name
# is the DVM's too.
run prterun "$PRTERUN" -n 2 --mca btl self "$MPI_HELLO"
expect_status prterun 1
expect_line prterun err "BTLs attempted: self"
expect_no_line prterun err "unknown parameter"
run prterun_prte "$PRTERUN" -n 1 --mca plm_base_verbose 5 true
expect_status prterun_prte 0
expect_line prterun_prte err "plm:"

finish
