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
# Time: the three builds and the tests share it about evenly. ccache (_ccache/) lets the later
# plain build reuse the first build's objects wherever their preprocessed source is the same (all
# but the files that read the DVM events or Slurm macros), `make -j2 check` builds the test programs
# on both cores, and CTest runs several tests side by side (test/Makefile.inc, PRTE_TEST_JOBS).
# Each phase prints its start as seconds since the beginning, and each test run its slowest ten
# tests (contrib/slowest-tests.sh), so a slow phase or test shows in the log.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
started=$(date +%s)
phase() { echo "run-tests: [$(( $(date +%s) - started )) s] $*"; }
phase "installing dependencies"
sh contrib/install-deps.sh
if command -v ccache >/dev/null 2>&1; then
    # BASEDIR makes the paths on each command line relative, NOHASHDIR leaves the build
    # directory out of the hash: _build and _build-dvm-events then compile identical inputs.
    CCACHE_DIR=$top/_ccache CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=4G
    CC="ccache gcc" CXX="ccache g++"
    export CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_MAXSIZE CC CXX
fi
phase "first build"
./autogen.sh >/dev/null 2>&1 || ./autogen.sh
sh contrib/build.sh "$top/_inst"
phase "the whole suite in the first build"
make -j2 -C _build check
# CI runs as root: a namespace or Slurm test that skipped there is a failure (contrib/check-skips.sh).
sh contrib/check-skips.sh _build/test

# The group and elastic tests again in a ThreadSanitizer build: a report from any process fails.
phase "the group and elastic tests under ThreadSanitizer, in the build without the Slurm components"
sh contrib/tsan-tests.sh "$top/_inst-tsan"

phase "second build, with the DVM completion events defined"
PRTE_BUILDDIR_NAME=_build-dvm-events sh contrib/build.sh "$top/_inst-dvm-events" \
    CPPFLAGS="-DPMIX_DVM_IS_READY=-3900 -DPMIX_ERR_DVM_MOD=-3901"
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
