#!/bin/sh
# The group and elastic tests again, in a ThreadSanitizer build (issue 26): the code that runs on
# PMIx's thread (the upcalls, the group and elastic bookkeeping it reaches) and the progress thread
# that owns the runtime's state must not race. GCC's -fsanitize=thread at -O1, without the Slurm
# components, and only what those tests run (programs, components, test clients), with the few
# unit tests of code that crosses threads: about 7 minutes on 2 cores. Called by
# contrib/run-tests.sh after the main build; $1 is the install prefix (nothing is installed).
#
# Every report fails the run. Each instrumented process (prte, the daemons, prun, the test
# clients) writes its reports to $logs/tsan.<pid> (TSAN_OPTIONS log_path: a daemon's stderr may
# reach nobody) and stops at the first (halt_on_error, exit status 66); after the tests this
# script prints every file there and fails if there is one. PMIx and libevent are not instrumented:
# the reports from inside them that are not races of ours are suppressed in contrib/tsan.supp,
# each with its reason.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/_inst-tsan}
build=$top/_build-tsan
flags="-g -O1 -fsanitize=thread"
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || ../configure --prefix="$prefix" --without-slurm CFLAGS="$flags" CXXFLAGS="$flags" \
    LDFLAGS="-fsanitize=thread" >configure.out
make -j2 all
# The clients and the test component those tests start (check_PROGRAMS without the unit tests).
clients=$(make -pn 2>/dev/null | sed -n 's/^check_PROGRAMS = //p' | head -1 | tr ' ' '\n' | grep '^test/clients/' |
    sed 's/\$(EXEEXT)//')
[ -n "$clients" ] || { echo "tsan-tests: no test clients found in the Makefile's check_PROGRAMS" >&2; exit 1; }
# The unit tests of the code that crosses threads: the event loop's posting from other threads, the
# state machine's dispatcher, child processes watched from the loop, rml's connections and messenger.
units="event_loop_test state_machine_test child_process_test rml_connection_test rml_messenger_test"
make -j2 $clients test/components/push/mca_ras_pushtest.la $(for u in $units; do echo "test/unit/$u"; done) \
    test/CTestTestfile.cmake

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
$norandom ctest --test-dir test --output-on-failure -R "^((group|elastic)_.*|$(echo $units | tr ' ' '|'))\$" ||
    status=$?
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
