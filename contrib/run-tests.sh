#!/bin/sh
# The test command: installs dependencies, builds and installs prte, runs the whole suite with
# CTest (make check), then runs the group and elastic tests again in a ThreadSanitizer build
# (contrib/tsan-tests.sh: any report fails), which is also the build without libslurm
# (--without-slurm: the project builds and its component tests pass without the Slurm components,
# docs/slurm.md) and the build as a PMIx that defines PMIX_DVM_IS_READY and PMIX_ERR_DVM_MOD would
# (DESIGN.md, "PMIx": its elastic tests see the completion events raised). As root (CI), a test
# that needs root and skipped fails the run (contrib/check-skips.sh), except in the
# ThreadSanitizer build, whose Slurm tests skip by design.
#
# Time: CI has 2 cores, and the run keeps both busy from the first build on, so its time is the
# CPU it spends; the builds are most of that. So there are two builds, not more (the ThreadSanitizer
# build stands for the other two configurations), and no ccache (on a fresh machine every lookup
# misses, and each miss preprocesses the file once more). `make -j2 check` builds the test
# programs on both cores, CTest runs several tests side by side (test/Makefile.inc,
# PRTE_TEST_JOBS), and the ThreadSanitizer build compiles at nice 19 from the first build on, in the
# CPU time the first build and then the suite's waiting tests leave. Each phase prints its start as seconds since the
# beginning and how busy the CPUs were in the phase before, and each test run its slowest ten
# tests (contrib/slowest-tests.sh), so a slow phase or test shows in the log.
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
# The first build compiles with line tables only (-g1: a backtrace still names every function, file
# and line), a tenth less compile time than autoconf's default -g.
PRTE_TEST_BUILD_FLAGS="-g1 -O2"
export PRTE_TEST_BUILD_FLAGS
phase "first build (the ThreadSanitizer build starts beside it at nice 19)"
./autogen.sh >/dev/null 2>&1 || ./autogen.sh
# The ThreadSanitizer build starts now, niced, in a session of its own so that a failing build or
# suite ends it too: its configure runs beside the first build's (each uses one core), and its
# compiles take the CPU the first build leaves idle (linking, make's serial steps), then the CPU the
# suite's waiting tests leave.
tsan_log=$top/_tsan-build.log
setsid -w nice -n 19 sh contrib/tsan-tests.sh --build-only "$top/_inst-tsan" >"$tsan_log" 2>&1 &
tsan_build=$!
trap 'kill -TERM "-$tsan_build" 2>/dev/null || true' EXIT
sh contrib/build.sh "$top/_inst" CFLAGS="$PRTE_TEST_BUILD_FLAGS" CXXFLAGS="$PRTE_TEST_BUILD_FLAGS"
phase "the whole suite in the first build (the ThreadSanitizer build compiles beside it at nice 19)"
make -j2 -C _build check
# CI runs as root: a namespace or Slurm test that skipped there is a failure (contrib/check-skips.sh).
sh contrib/check-skips.sh _build/test

phase "waiting for the ThreadSanitizer build"
tsan_status=0
wait "$tsan_build" || tsan_status=$?
trap - EXIT
if [ "$tsan_status" != 0 ]; then
    cat "$tsan_log"
    echo "run-tests: the ThreadSanitizer build failed (exit $tsan_status; its log is above)" >&2
    exit 1
fi
grep '^tsan-tests:' "$tsan_log"

# The group and elastic tests again in the ThreadSanitizer build: a report from any process fails.
phase "the group and elastic tests under ThreadSanitizer, in the build without the Slurm components and with the DVM completion events"
sh contrib/tsan-tests.sh --test-only "$top/_inst-tsan"

phase "done"
