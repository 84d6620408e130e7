# Shared helpers for the integration tests (sourced, POSIX sh). Each test runs real programs from
# the build tree; CTest passes PRTE_BUILDDIR and PRTE_SRCDIR (see test/Makefile.inc).
: "${PRTE_BUILDDIR:?run this under ctest, or set PRTE_BUILDDIR to the build directory}"
: "${PRTE_SRCDIR:?set PRTE_SRCDIR to the source directory}"

PRTE_INFO="$PRTE_BUILDDIR/src/tools/prte_info/prte_info"
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/prte-test.XXXXXX")
# INT/TERM (CTest's timeout, ^C) exit through the EXIT trap: a trap that returned would let the
# script run on with TEST_TMP already gone.
trap 'rm -rf "$TEST_TMP"' EXIT
trap 'exit 130' INT TERM
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

pass() {
    echo "ok: $*"
}

# run <name> <command...>: runs it, keeping stdout, stderr and the exit status for the checks below.
run() {
    name=$1
    shift
    "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err"
    eval "status_$name=\$?"
}

status_of() { eval "echo \$status_$1"; }

expect_status() {
    actual=$(status_of "$1")
    if [ "$actual" = "$2" ]; then pass "$1 exits $2"; else
        fail "$1 exited $actual, expected $2"
        sed 's/^/    stderr: /' "$TEST_TMP/$1.err"
    fi
}

# expect_line <name> out|err <fixed string>: some line contains the string.
expect_line() {
    if grep -qF -- "$3" "$TEST_TMP/$1.$2"; then pass "$1 $2 has '$3'"; else
        fail "$1 $2 lacks '$3'"
        sed 's/^/    /' "$TEST_TMP/$1.$2"
    fi
}

# expect_no_line <name> out|err <fixed string>: no line contains the string; the output must exist
# (a run that never happened proves nothing).
expect_no_line() {
    if [ ! -f "$TEST_TMP/$1.$2" ]; then
        fail "$1 $2 does not exist (was '$1' run?)"
    elif grep -qF -- "$3" "$TEST_TMP/$1.$2"; then
        fail "$1 $2 unexpectedly has '$3'"
        sed 's/^/    /' "$TEST_TMP/$1.$2"
    else pass "$1 $2 has no '$3'"; fi
}

# expect_one_line_errors <name>: every stderr line is a one-line "prog: error:"/"warning:" message.
expect_one_line_errors() {
    if grep -qvE '^[a-z_]+: (error|warning): ' "$TEST_TMP/$1.err"; then
        fail "$1 stderr has lines that are not one-line messages"
        sed 's/^/    /' "$TEST_TMP/$1.err"
    else pass "$1 stderr is one-line messages"; fi
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
