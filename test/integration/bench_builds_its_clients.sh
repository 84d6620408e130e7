#!/bin/sh
# bench/multinode runs test clients that only `make check` builds (issue 14, item 9: it printed
# "No such file or directory" after the README's command). It builds the missing ones in the build
# directory first, or stops with one line saying how. Checked with stand-in build directories, so
# no benchmark runs here: `--prepare` only builds.
. "$(dirname "$0")/lib.sh"
BENCH="$PRTE_SRCDIR/bench/multinode"

# A build directory whose make builds stand-ins for the clients.
fake="$TEST_TMP/build"
mkdir -p "$fake"
printf 'test/clients/fencetime test/clients/putget:\n\tmkdir -p test/clients && printf "#!/bin/sh\\n" >$@ && chmod +x $@\n' \
    >"$fake/Makefile"
PRTE_BUILDDIR="$fake" PRTE_BIN="$TEST_TMP/no-bin" run prepare bash "$BENCH" --prepare
expect_status prepare 0
if [ -x "$fake/test/clients/fencetime" ] && [ -x "$fake/test/clients/putget" ]; then
    pass "--prepare built fencetime and putget in the build directory"
else
    fail "--prepare did not build the clients: $(cat "$TEST_TMP/prepare.err")"
fi
PRTE_BUILDDIR="$fake" PRTE_BIN="$TEST_TMP/no-bin" run again bash "$BENCH" --prepare
expect_status again 0
expect_no_line again err "building"

# A directory that is no build directory: one line saying what to do, before any benchmark.
empty="$TEST_TMP/not-a-build"
mkdir -p "$empty"
PRTE_BUILDDIR="$empty" PRTE_BIN="$TEST_TMP/no-bin" run nobuild bash "$BENCH" 1
expect_status nobuild 1
expect_line nobuild err "bench/multinode: error: cannot build test/clients/fencetime test/clients/putget in $empty: run 'make check' there"
expect_no_line nobuild out "DVM start-up"

finish
