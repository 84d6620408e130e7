#!/bin/sh
# Every function-local mutable static in src/ is listed, with its reason, in
# contrib/function-statics.txt (issue 30, item 5). The check must also fail on a copy of src/ that
# adds an unlisted one, and on a list naming one that is gone.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-statics.sh"
list="$PRTE_SRCDIR/contrib/function-statics.txt"
if sh "$check" "$PRTE_SRCDIR/src" "$list" >"$TEST_TMP/tree.out" 2>&1; then
    pass "every function-local mutable static is listed ($(tail -1 "$TEST_TMP/tree.out"))"
else
    fail "the statics check fails on the tree:"
    sed 's/^/    /' "$TEST_TMP/tree.out"
fi

copy="$TEST_TMP/src-added"
cp -r "$PRTE_SRCDIR/src" "$copy"
printf 'int next_serial()\n{\n    static int serial = 0;\n    return ++serial;\n}\n' >>"$copy/runtime/job.cc"
if sh "$check" "$copy" "$list" >"$TEST_TMP/added.out" 2>&1; then
    fail "the check passed with an unlisted static in src/runtime/job.cc"
elif grep -q "src/runtime/job.cc: static int serial" "$TEST_TMP/added.out"; then
    pass "an unlisted static fails the check, named with its file"
else
    fail "the check failed without naming the static:"
    sed 's/^/    /' "$TEST_TMP/added.out"
fi

printf 'src/runtime/job.cc: static int gone  # listed, not there\n' | cat "$list" - >"$TEST_TMP/list"
if sh "$check" "$PRTE_SRCDIR/src" "$TEST_TMP/list" >"$TEST_TMP/gone.out" 2>&1; then
    fail "the check passed with a list naming a static that is not there"
elif grep -q "src/runtime/job.cc: static int gone" "$TEST_TMP/gone.out"; then
    pass "a listed static that is gone fails the check"
else
    fail "the check failed without naming the stale entry:"
    sed 's/^/    /' "$TEST_TMP/gone.out"
fi

finish
