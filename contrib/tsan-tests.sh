#!/bin/sh
# The group and elastic tests again, in a ThreadSanitizer build (issue 26): the code that runs on
# PMIx's thread (the upcalls, the group and elastic bookkeeping it reaches) and the progress thread
# that owns the runtime's state must not race. GCC's -fsanitize=thread at -O1, without the Slurm
# components, and only what those tests run (programs, components, test clients), with the few
# unit tests of code that crosses threads. Line tables only (-g1): enough for every frame of a
# report to name its function, file and line, and a fifth less compile time than -g. $1 is the
# install prefix (nothing is installed); --build-only and --test-only do one half:
# contrib/run-tests.sh builds while the first build's suite runs and tests afterwards.
#
# This one build also stands for the two other configurations CI checks besides the first build
# (each was a whole build of its own, and CI's time is the builds' CPU):
# - Being --without-slurm, it is the check that the project builds and its components load
#   without libslurm (docs/slurm.md): component_loading runs here too, and the Slurm tests, which
#   skip by design saying why. (out_of_tree_component does not run here: a third party's program,
#   built from pkg-config's flags alone, cannot link against an instrumented libprte; the first
#   build runs it.)
# - It is built as a PMIx that defines PMIX_DVM_IS_READY and PMIX_ERR_DVM_MOD would be
#   (DESIGN.md, "PMIx"): the elastic tests here see the completion events raised, where the first
#   build, against Debian's PMIx 4.2.2, logs that it has none to raise (docs/elastic.md). The
#   events change only the few files that read the codes (pmix/allocation.cc, the info report,
#   palloc and its test client), none of which a unit test reaches.
#
# Every report fails the run. Each instrumented process (prte, the daemons, prun, the test
# clients) writes its reports to $logs/tsan.<pid> (TSAN_OPTIONS log_path: a daemon's stderr may
# reach nobody) and stops at the first (halt_on_error, exit status 66); after the tests this
# script prints every file there and fails if there is one. PMIx and libevent are not instrumented:
# the reports from inside them that are not races of ours are suppressed in contrib/tsan.supp,
# each with its reason.
set -e
step=all
case "$1" in --build-only) step=build; shift ;; --test-only) step=test; shift ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/_inst-tsan}
build=$top/_build-tsan
flags="-g1 -O1 -fsanitize=thread"
# The unit tests of the code that crosses threads: the event loop's posting from other threads, the
# state machine's dispatcher, child processes watched from the loop, rml's connections and messenger.
units="event_loop_test state_machine_test child_process_test rml_connection_test rml_messenger_test"
mkdir -p "$build"
cd "$build"
build_tsan() {
    build_started=$(date +%s)
    [ -f Makefile ] || ../configure --prefix="$prefix" --without-slurm CFLAGS="$flags" CXXFLAGS="$flags" \
        CPPFLAGS="-DPMIX_DVM_IS_READY=-3900 -DPMIX_ERR_DVM_MOD=-3901" LDFLAGS="-fsanitize=thread" >configure.out
    make -j2 all
    # The clients and the test component those tests start (check_PROGRAMS without the unit tests).
    clients=$(make -pn 2>/dev/null | sed -n 's/^check_PROGRAMS = //p' | head -1 | tr ' ' '\n' | grep '^test/clients/' |
        sed 's/\$(EXEEXT)//')
    [ -n "$clients" ] || { echo "tsan-tests: no test clients found in the Makefile's check_PROGRAMS" >&2; exit 1; }
    # The test components (component_loading's, and the elastic tests' ras/pushtest).
    components=$(make -pn 2>/dev/null | sed -n 's/^check_LTLIBRARIES = //p' | head -1)
    [ -n "$components" ] || { echo "tsan-tests: no test components found in the Makefile's check_LTLIBRARIES" >&2; exit 1; }
    make -j2 $clients $components $(for u in $units; do echo "test/unit/$u"; done) test/CTestTestfile.cmake
    echo "tsan-tests: the ThreadSanitizer build is complete ($(( $(date +%s) - build_started )) s)"
}
# Called as a plain command (not in an || list, where set -e would not stop a failing make).
if [ "$step" != test ]; then
    build_tsan
fi
if [ "$step" = build ]; then
    exit 0
fi

# This build is also the project's build without the Slurm components (docs/slurm.md): it says so,
# and the components' tests pass in it (the Slurm tests skip by design, saying why).
src/tools/prte_info/prte_info --version --parsable | grep -qx 'config:slurm:no' || {
    echo "tsan-tests: prte_info of the build --without-slurm does not say config:slurm:no" >&2
    exit 1
}
# And the build with the DVM completion events: configure found them, and prte_info says so.
grep -q '^#define PRTE_HAVE_PMIX_DVM_EVENTS 1' src/prte_config.h || {
    echo "tsan-tests: configure did not detect the DVM completion events defined in CPPFLAGS" >&2
    exit 1
}
src/tools/prte_info/prte_info --version --parsable | grep -qx 'config:dvm_completion_events:yes' || {
    echo "tsan-tests: prte_info of this build does not report the DVM completion events" >&2
    exit 1
}

logs=$build/tsan-logs
rm -rf "$logs"
mkdir -p "$logs"
TSAN_OPTIONS="log_path=$logs/tsan halt_on_error=1 exitcode=66 second_deadlock_stack=1"
TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$top/contrib/tsan.supp"
export TSAN_OPTIONS
# Without address-space randomisation: TSan's fixed shadow layout fails ("unexpected memory
# mapping") on kernels that randomise more bits than GCC 12's TSan expects.
norandom=
setarch "$(uname -m)" -R true 2>/dev/null && norandom="setarch $(uname -m) -R"
status=0
# Side by side, as make check runs them (test/Makefile.inc), but fewer at once: an instrumented
# process needs several times the CPU of a plain one.
rm -f test/Testing/last-run.xml
$norandom ctest --test-dir test --output-on-failure --output-junit Testing/last-run.xml -j"${PRTE_TSAN_TEST_JOBS:-3}" \
    -R "^((group|elastic)_.*|component_loading|slurm_.*|$(echo $units | tr ' ' '|'))\$" ||
    status=$?
sh "$top/contrib/slowest-tests.sh" test || true
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
    for f in $reports; do
        echo "tsan-tests: ThreadSanitizer report in $f:"
        cat "$f"
    done
    echo "tsan-tests: $(echo "$reports" | wc -l) process(es) reported by ThreadSanitizer (above)" >&2
    exit 1
fi
[ "$status" = 0 ] || { echo "tsan-tests: the tests failed under ThreadSanitizer" >&2; exit "$status"; }
echo "tsan-tests: the group, elastic and threaded unit tests ran clean under ThreadSanitizer"
