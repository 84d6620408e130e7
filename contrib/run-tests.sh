#!/bin/sh
# The test command: installs dependencies, builds and installs prte, runs the whole suite with
# CTest (make check), runs the group and elastic tests again in a ThreadSanitizer build
# (contrib/tsan-tests.sh: any report fails), which is also the build without libslurm
# (--without-slurm: the project builds and its component tests pass without the Slurm components,
# docs/slurm.md), then builds a second time as a PMIx that defines PMIX_DVM_IS_READY and
# PMIX_ERR_DVM_MOD would (DESIGN.md, "PMIx") and runs the unit tests and the elastic DVM's tests
# there too; the Slurm tests run in both. As root (CI), a test that needs root and skipped fails the
# run (contrib/check-skips.sh), except in the ThreadSanitizer build, whose Slurm tests skip by design.
#
# Time: builds take more than half of it. ccache (_ccache/) lets the later plain build reuse the
# first build's objects wherever their preprocessed source is the same (all but the files that read
# the DVM events or Slurm macros), `make -j2 check` builds the test programs on both cores, CTest
# runs several tests side by side (test/Makefile.inc, PRTE_TEST_JOBS), and the two later builds
# compile at nice 19 while the first build's suite runs (contrib/later-builds.sh), in the CPU time
# its waiting tests leave. Each phase prints its start as seconds since the beginning and how busy
# the CPUs were in the phase before, and each test run its slowest ten tests
# (contrib/slowest-tests.sh), so a slow phase or test shows in the log.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
started=$(date +%s)
# CPU time busy and idle so far, in clock ticks, from /proc/stat's first line.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat; }
last_ticks=$(cpu_ticks)
last_phase=$started
phase() {
    now=$(date +%s)
    ticks=$(cpu_ticks)
    busy=$(echo "$last_ticks $ticks" | awk '{ b = $3 - $1; i = $4 - $2; printf "%d", (b + i > 0) ? 100 * b / (b + i) : 0 }')
    [ "$now" = "$started" ] || echo "run-tests: (that phase: $((now - last_phase)) s, CPUs ${busy}% busy)"
    echo "run-tests: [$((now - started)) s] $*"
    last_ticks=$ticks
    last_phase=$now
}
phase "installing dependencies"
sh contrib/install-deps.sh
if command -v ccache >/dev/null 2>&1; then
    # BASEDIR makes the paths on each command line relative, NOHASHDIR leaves the build
    # directory out of the hash: _build and _build-dvm-events then compile identical inputs.
    CCACHE_DIR=$top/_ccache CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=4G
    CC="ccache gcc" CXX="ccache g++"
    export CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_MAXSIZE CC CXX
fi
# Both plain builds compile with line tables only (-g1: a backtrace still names every function, file
# and line), a tenth less compile time than autoconf's default -g; the same flags in both, or ccache
# could not share their objects.
PRTE_TEST_BUILD_FLAGS="-g1 -O2"
export PRTE_TEST_BUILD_FLAGS
phase "first build"
./autogen.sh >/dev/null 2>&1 || ./autogen.sh
sh contrib/build.sh "$top/_inst" CFLAGS="$PRTE_TEST_BUILD_FLAGS" CXXFLAGS="$PRTE_TEST_BUILD_FLAGS"
# The ThreadSanitizer build and the DVM-events build compile beside the suite, niced, in a session
# of their own so that a failing suite ends them too.
later_log=$top/_later-builds.log
setsid -w nice -n 19 sh contrib/later-builds.sh "$top" >"$later_log" 2>&1 &
later=$!
trap 'kill -TERM "-$later" 2>/dev/null || true' EXIT
phase "the whole suite in the first build (the two later builds compile beside it at nice 19)"
make -j2 -C _build check
# CI runs as root: a namespace or Slurm test that skipped there is a failure (contrib/check-skips.sh).
sh contrib/check-skips.sh _build/test

phase "waiting for the two later builds"
later_status=0
wait "$later" || later_status=$?
trap - EXIT
if [ "$later_status" != 0 ]; then
    cat "$later_log"
    echo "run-tests: the later builds failed (exit $later_status; their log is above)" >&2
    exit 1
fi
grep '^later-builds:' "$later_log"

# The group and elastic tests again in a ThreadSanitizer build: a report from any process fails.
phase "the group and elastic tests under ThreadSanitizer, in the build without the Slurm components"
sh contrib/tsan-tests.sh --test-only "$top/_inst-tsan"

phase "the unit, elastic and Slurm tests in the build with the DVM completion events defined"
grep -q '^#define PRTE_HAVE_PMIX_DVM_EVENTS 1' _build-dvm-events/src/prte_config.h || {
    echo "run-tests: configure did not detect the DVM completion events in the second build" >&2
    exit 1
}
_build-dvm-events/src/tools/prte_info/prte_info --version --parsable | grep -qx 'config:dvm_completion_events:yes' || {
    echo "run-tests: prte_info of the second build does not report the DVM completion events" >&2
    exit 1
}
# The unit tests, and the elastic DVM's tests again, where the completion events are raised
# (docs/elastic.md), and the Slurm tests, whose grows and shrinks raise them too (docs/slurm.md).
make -j2 -C _build-dvm-events check CTEST_FLAGS="-R '^((elastic|slurm)_.*|.*_test)\$\$'"
sh contrib/check-skips.sh _build-dvm-events/test
phase "done"
