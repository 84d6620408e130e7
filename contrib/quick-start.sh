#!/bin/sh
# The main job: install dependencies, build and install prte in _inst/, start a DVM, run real jobs
# on it (plain programs, a PMIx client, an Open MPI program when mpicc is present, an MPICH one
# when mpicc.mpich is), and stop it;
# then a DVM of four local test-bed nodes running jobs across them.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh contrib/install-deps.sh
sh contrib/build.sh "$top/_inst"
make -C _build test/clients/jobinfo test/clients/putget >/dev/null  # PMIx client examples
bin="$top/_inst/bin"
export PATH="$bin:$PATH"

step() { printf '\n$ %s\n' "$*"; "$@"; }

step prte --daemonize
trap 'pterm >/dev/null 2>&1 || true' EXIT
step prun -n 2 hostname
step prun -n 4 --map-by :OVERSUBSCRIBE --output tag echo hello from a DVM
echo
echo "$ echo 'to rank 0' | prun -n 2 cat     # stdin goes to rank 0"
echo 'to rank 0' | prun -n 2 cat
step prun -n 3 --map-by :OVERSUBSCRIBE "$top/_build/test/clients/jobinfo"
step prun -n 3 --map-by :OVERSUBSCRIBE "$top/_build/test/clients/putget"
if command -v mpicc >/dev/null 2>&1; then
    mpicc -o "$top/_build/mpi_hello" "$top/test/clients/mpi_hello.c"
    step prun -n 2 "$top/_build/mpi_hello"
fi
# MPICH beside it, in the same DVM, with no option: the daemons serve its PMI (docs/user-guide.md, "MPICH").
if command -v mpicc.mpich >/dev/null 2>&1; then
    mpicc.mpich -o "$top/_build/mpich_hello" "$top/test/clients/mpich_hello.c"
    step prun -n 4 --map-by :OVERSUBSCRIBE "$top/_build/mpich_hello"
fi
echo
echo "$ prun -n 2 sh -c 'exit 3'   # the job's exit status is prun's"
prun -n 2 sh -c 'exit 3' || echo "prun exited $?"
step pterm
trap - EXIT
step prterun -n 2 --output tag echo one DVM, one job

# A DVM of four nodes on this machine: the test-bed's local-agent stands in for ssh, so each
# prted runs here under its own node name (test/testbed/README.md; on a real cluster: --hostfile
# and plain ssh).
printf 'node1\nnode2\nnode3\nnode4\n' >"$top/_build/quick-start-hosts"
step prte --daemonize --hostfile "$top/_build/quick-start-hosts" \
    --prtemca plm_ssh_agent "$top/test/testbed/local-agent" --prtemca oob_tcp_if_include lo --prtemca rml_radix 2
trap 'pterm >/dev/null 2>&1 || true' EXIT
step prun -n 8 --map-by node "$top/_build/test/clients/jobinfo"
step prun -n 8 --map-by node "$top/_build/test/clients/putget"
if [ -x "$top/_build/mpich_hello" ]; then step prun -n 4 --map-by node "$top/_build/mpich_hello"; fi
echo
echo "$ echo 'to rank 0 on node1' | prun -n 4 --map-by node cat"
echo 'to rank 0 on node1' | prun -n 4 --map-by node cat
step pterm
trap - EXIT

# The elastic DVM (docs/elastic.md): grow it while it runs, run across the new nodes, give one back.
step prte --daemonize --hostfile "$top/_build/quick-start-hosts" --prtemca prte_elastic_mode 1 \
    --prtemca plm_ssh_agent "$top/test/testbed/local-agent" --prtemca oob_tcp_if_include lo --prtemca rml_radix 2
trap 'pterm >/dev/null 2>&1 || true' EXIT
step palloc -w node5,node6 --request-id demo
step prun -n 6 --map-by node "$top/_build/test/clients/putget"
step prun --add-host node7 -n 7 --map-by node "$top/_build/test/clients/putget"
step palloc --shrink alloc-1 -w node5
step prun -n 6 --map-by node "$top/_build/test/clients/putget"
step pterm
trap - EXIT
