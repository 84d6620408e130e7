#!/bin/sh
# The main job, as far as the project has come: install dependencies, build and install prte in
# _inst/, then show what the runtime would load and select on this machine.
# (The DVM itself — prte, prun, pterm — arrives with the single-node DVM work; this script will
# then start a DVM and run jobs on it.)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh contrib/install-deps.sh
sh contrib/build.sh "$top/_inst"
echo
"$top/_inst/bin/prte_info"
echo
echo "Selected on this machine (as the DVM master would choose):"
"$top/_inst/bin/prte_info" --selected
