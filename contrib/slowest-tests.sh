#!/bin/sh
# slowest-tests.sh TESTDIR [N]: after a CTest run in TESTDIR (`make check` writes its results to
# TESTDIR/Testing/last-run.xml), prints the N (default 10) tests that took longest, slowest first,
# with the run's test count and summed test time. Called after each phase of contrib/run-tests.sh,
# so a test that grew slow shows in CI's log. Under ctest -j the summed time is more than the
# phase's wall time: the difference is what running tests side by side saved.
dir=${1:?usage: slowest-tests.sh TESTDIR [N] (the test directory of a build tree, after make check)}
n=${2:-10}
results="$dir/Testing/last-run.xml"
if [ ! -f "$results" ]; then
    echo "slowest-tests: error: no results in $results: run make check (or ctest --output-junit Testing/last-run.xml) first" >&2
    exit 1
fi
# One <testcase name="..." ... time="seconds" .../> element per test.
times=$(tr '\n' ' ' <"$results" | sed 's/<testcase /\n<testcase /g' |
    sed -n 's/^<testcase name="\([^"]*\)"[^>]*time="\([0-9.]*\)".*/\2 \1/p' | sort -rn)
[ -n "$times" ] || { echo "slowest-tests: no test results in $results"; exit 0; }
echo "$times" | awk -v n="$n" '{ total += $1; count++ }
    END { printf "slowest-tests: %d test(s), %.0f s of test time; the slowest %d:\n", count, total, (count < n ? count : n) }'
echo "$times" | head -n "$n" | awk '{ printf "slowest-tests: %8.1f s  %s\n", $1, $2 }'
