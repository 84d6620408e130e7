#!/bin/sh
# Fetches MPICH's own test programs for spawning and name publishing (test/mpi/spawn of the source
# package matching the installed libmpich-dev, with the test/mpi/include and test/mpi/util they
# build with) into _deps/mpich-tests, for the test mpich_own_spawn_tests: programs we did not write,
# run under prun. Debian's source package, through a private apt state (contrib/debian-source.sh).
# MPICH's configure writes include/mpitestconf.h; the few facts these programs read from it are
# written here instead (Debian 12: POSIX threads, MPI_Comm_spawn built in).
# Usage: sh contrib/fetch-mpich-tests.sh [destination]   (idempotent)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/contrib/debian-source.sh"
CALLER=fetch-mpich-tests
dest=${1:-$top/_deps/mpich-tests}
version=$(dpkg-query -W -f='${source:Version}' libmpich-dev 2>/dev/null) || {
    echo "fetch-mpich-tests: libmpich-dev is not installed" >&2
    exit 1
}
if [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$version" ]; then
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mpich-src.XXXXXX")
trap 'rm -rf "$work"' EXIT
tarball=$(fetch_debian_source mpich "$version" "$work") || exit 1
rm -rf "$dest"
mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=3 --wildcards '*/test/mpi/spawn/*' '*/test/mpi/include/*' \
    '*/test/mpi/util/*'
cat >"$dest/include/mpitestconf.h" <<'CONF'
/* Written by prte's contrib/fetch-mpich-tests.sh in place of MPICH's configure. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_MPI_SPAWN 1
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_PTHREAD_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
CONF
echo "$version" >"$dest/.version"
echo "fetch-mpich-tests: MPICH $version's spawn tests in $dest"
