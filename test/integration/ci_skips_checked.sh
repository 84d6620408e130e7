#!/bin/sh
# CI runs as root, where the namespace and Slurm tests must run: one that skipped (exit 77, which
# CTest counts as a success) fails the run (contrib/check-skips.sh, called by contrib/run-tests.sh
# after each make check; issue 27). The check is run on CTest runs of stand-in tests: it must fail
# naming a skipped test that needs root, and only that one; pass when only another test skipped;
# and every script that starts a namespace or Slurm test-bed must be named as a test that needs root.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-skips.sh"
# ctest_run NAME:STATUS...: a CTest run in $TEST_TMP/NAME of stand-ins exiting with those statuses.
ctest_run() {
    dir="$TEST_TMP/$1"
    shift
    mkdir -p "$dir"
    : >"$dir/CTestTestfile.cmake"
    for t in "$@"; do
        echo "add_test(${t%:*} sh -c \"echo SKIP: stand-in; exit ${t#*:}\")" >>"$dir/CTestTestfile.cmake"
        echo "set_tests_properties(${t%:*} PROPERTIES SKIP_RETURN_CODE 77)" >>"$dir/CTestTestfile.cmake"
    done
    (cd "$dir" && ctest --output-junit Testing/last-run.xml >/dev/null 2>&1)
}

ctest_run lost dvm_run_jobs:0 elastic_netns:77 slurm_launch:77 binding:77 testbed_selftest:0
if CI=true sh "$check" "$TEST_TMP/lost" >"$TEST_TMP/lost.out" 2>&1; then
    fail "the check passed with elastic_netns and slurm_launch skipped"
elif grep -q "error: tests that need root skipped .*: elastic_netns slurm_launch;" "$TEST_TMP/lost.out" &&
    ! grep "error" "$TEST_TMP/lost.out" | grep -q binding; then
    pass "skipped namespace and Slurm tests fail the check, named (binding's skip does not)"
else
    fail "the check failed without naming exactly the two:"; sed 's/^/    /' "$TEST_TMP/lost.out"
fi

ctest_run fine dvm_run_jobs:0 elastic_netns:0 binding:77
if CI=true sh "$check" "$TEST_TMP/fine" >"$TEST_TMP/fine.out" 2>&1 && grep -q "skipped: binding" "$TEST_TMP/fine.out"; then
    pass "a skip of a test that does not need root is reported, not failed"
else
    fail "the check with only binding skipped:"; sed 's/^/    /' "$TEST_TMP/fine.out"
fi

ctest_run none dvm_run_jobs:0 elastic_netns:0
CI=true sh "$check" "$TEST_TMP/none" >"$TEST_TMP/none.out" 2>&1 && grep -q "no test skipped" "$TEST_TMP/none.out" &&
    pass "nothing skipped: the check passes" || fail "the check with nothing skipped: $(cat "$TEST_TMP/none.out")"
sh "$check" "$TEST_TMP/nowhere" >/dev/null 2>&1 && fail "the check passed without results" ||
    pass "no results: the check fails (it never passes by reading nothing)"

# Every test script that starts a namespace or Slurm test-bed at its top level is named as one
# that needs root, so that check-skips.sh knows it.
pattern=$(sed -n "s/^ROOT_TESTS='\(.*\)'$/\1/p" "$check")
for script in $(grep -l "^require_netns \|^require_slurm \|^start_netns_nodes_dvm \|^skip_netns " \
    "$PRTE_SRCDIR"/test/integration/*.sh); do
    name=$(basename "$script" .sh)
    echo "$name" | grep -qE "$pattern" || fail "$name starts a test-bed that needs root, but check-skips.sh does not know it"
done
pass "every script that needs root is named as such ($pattern)"
finish
