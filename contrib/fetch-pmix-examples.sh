#!/bin/sh
# Fetches OpenPMIx's own example programs (examples/ of the source package matching the installed
# libpmix-dev) into _deps/pmix-examples, for the test pmix_examples: programs we did not write,
# run against the DVM. Uses Debian's source package through a private apt state (deb-src lines
# derived from this machine's own sources), so the system's apt configuration is never changed
# (contrib/debian-source.sh).
# Usage: sh contrib/fetch-pmix-examples.sh [destination]   (idempotent)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/contrib/debian-source.sh"
CALLER=fetch-pmix-examples
dest=${1:-$top/_deps/pmix-examples}
version=$(dpkg-query -W -f='${source:Version}' libpmix-dev 2>/dev/null) || {
    echo "fetch-pmix-examples: libpmix-dev is not installed" >&2
    exit 1
}
if [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$version" ]; then
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pmix-src.XXXXXX")
trap 'rm -rf "$work"' EXIT
tarball=$(fetch_debian_source pmix "$version" "$work") || exit 1
rm -rf "$dest"
mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=2 --wildcards '*/examples/*'
echo "$version" >"$dest/.version"
echo "fetch-pmix-examples: OpenPMIx $version examples in $dest"
