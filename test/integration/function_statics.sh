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

# fails_naming <case> <src> <list> <line> <what>: the check must fail on <src> with <list>, naming <line>.
fails_naming() {
    if sh "$check" "$2" "$3" >"$TEST_TMP/$1.out" 2>&1; then
        fail "the check passed with $5"
    elif grep -q "$4" "$TEST_TMP/$1.out"; then
        pass "$5 fails the check, named"
    else
        fail "the check failed without naming $5:"
        sed 's/^/    /' "$TEST_TMP/$1.out"
    fi
}

copy="$TEST_TMP/src-added"
cp -r "$PRTE_SRCDIR/src" "$copy"
printf 'int next_serial()\n{\n    static int serial = 0;\n    return ++serial;\n}\n' >>"$copy/runtime/job.cc"
fails_naming added "$copy" "$list" "src/runtime/job.cc: static int serial" "an unlisted static in src/runtime/job.cc"

printf 'src/runtime/job.cc: static int gone  # listed, not there\n' | cat "$list" - >"$TEST_TMP/list"
fails_naming gone "$PRTE_SRCDIR/src" "$TEST_TMP/list" "src/runtime/job.cc: static int gone" \
    "a listed static that is not there"

finish
