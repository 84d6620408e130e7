#!/bin/sh
# Builds and installs prte from this checkout: build tree in _build/, install in _inst/ (or the
# prefix given as $1). Extra configure arguments may follow.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/_inst}
[ $# -gt 0 ] && shift
builddir=${PRTE_BUILDDIR_NAME:-_build}
cd "$top"
[ -x configure ] || ./autogen.sh
mkdir -p "$builddir"
cd "$builddir"
[ -f Makefile ] || ../configure --prefix="$prefix" "$@"
make -j2
make install
echo "build: prte installed in $prefix"
