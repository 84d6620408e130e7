#!/bin/sh
# The two builds that contrib/run-tests.sh tests after the first build's suite: the
# ThreadSanitizer build (contrib/tsan-tests.sh --build-only) and the build with the DVM completion
# events defined, test programs included. run-tests.sh starts this at nice 19 while the first
# build's suite runs: the suite's tests spend most of their time waiting for their DVMs, and the
# compilers take the CPU they leave, without slowing them (a niced compiler yields at once).
# $1 is the top of the checkout; PRTE_TEST_BUILD_FLAGS, the first build's CFLAGS and CXXFLAGS
# (the same here, so that ccache reuses its objects). Prints a line as each build starts and ends.
set -e
top=${1:?usage: later-builds.sh TOP}
cd "$top"
started=$(date +%s)
say() { echo "later-builds: [$(( $(date +%s) - started )) s] $*"; }
say "the ThreadSanitizer build"
sh contrib/tsan-tests.sh --build-only "$top/_inst-tsan"
say "the build with the DVM completion events defined"
PRTE_BUILDDIR_NAME=_build-dvm-events sh contrib/build.sh "$top/_inst-dvm-events" \
    CPPFLAGS="-DPMIX_DVM_IS_READY=-3900 -DPMIX_ERR_DVM_MOD=-3901" \
    CFLAGS="${PRTE_TEST_BUILD_FLAGS:--g -O2}" CXXFLAGS="${PRTE_TEST_BUILD_FLAGS:--g -O2}"
make -j2 -C _build-dvm-events check-programs
say "both builds are complete"
