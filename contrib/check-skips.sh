#!/bin/sh
# check-skips.sh TESTDIR: after a CTest run in TESTDIR (`make check` writes its results to
# TESTDIR/Testing/last-run.xml), says which tests skipped. Where the tests that need root must run
# - as root, or wherever CI=true (CI runs as root) - it fails if any of them skipped: the
# namespace and Slurm test-beds exit 77 without root, or without a usable `ip netns` or Slurm,
# and CTest counts a skip as a success, so a CI that lost them would stay green.
#
# The tests that need root are known by name: slurm_*, *_netns, testbed_selftest (the test
# ci_skips_checked checks that every script starting a namespace or Slurm test-bed is named so).
ROOT_TESTS='^(slurm_.*|.*_netns|testbed_selftest)$'

dir=${1:?usage: check-skips.sh TESTDIR (the test directory of a build tree, after make check)}
results="$dir/Testing/last-run.xml"
if [ ! -f "$results" ]; then
    echo "check-skips: error: no results in $results: run make check (or ctest --output-junit Testing/last-run.xml) first" >&2
    exit 1
fi
# One <testcase .../> element per test; a skipped (or disabled) one has status="notrun".
skipped=$(tr '\n' ' ' <"$results" | sed 's/<testcase /\n<testcase /g' |
    sed -n 's/^<testcase name="\([^"]*\)"[^>]*status="notrun".*/\1/p')
if [ -z "$skipped" ]; then
    echo "check-skips: no test skipped"
    exit 0
fi
echo "check-skips: skipped: $(echo $skipped)"
must_run=$(echo "$skipped" | grep -E "$ROOT_TESTS")
if [ -z "$must_run" ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] && [ "${CI:-}" != true ]; then
    echo "check-skips: note: $(echo $must_run) need root; they were skipped (not root, not CI)"
    exit 0
fi
echo "check-skips: error: tests that need root skipped where they must run (root or CI=true): $(echo $must_run);" \
    "each says why in its SKIP line ($dir/Testing/Temporary/LastTest.log)" >&2
exit 1
