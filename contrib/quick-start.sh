#!/bin/sh
# The main job: install dependencies, build and install prte in _inst/, start a DVM, run real jobs
# on it (plain programs, a PMIx client, an Open MPI program when mpicc is present), and stop it.
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
echo
echo "$ prun -n 2 sh -c 'exit 3'   # the job's exit status is prun's"
prun -n 2 sh -c 'exit 3' || echo "prun exited $?"
step pterm
trap - EXIT
step prterun -n 2 --output tag echo one DVM, one job
