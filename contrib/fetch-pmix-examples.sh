#!/bin/sh
# Fetches OpenPMIx's own example programs (examples/ of the source package matching the installed
# libpmix-dev) into _deps/pmix-examples, for the test pmix_examples: programs we did not write,
# run against the DVM. Uses Debian's source package through a private apt state (deb-src lines
# derived from this machine's own sources), so the system's apt configuration is never changed.
# Usage: sh contrib/fetch-pmix-examples.sh [destination]   (idempotent)
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
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
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
# deb-src twins of the machine's deb sources (deb822 files and one-line lists alike).
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$work/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >"$work/parts/$(basename "$f").list"
done
apt_private() {
    apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts" \
        -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
}
apt_private update >"$work/update.log" 2>&1 || {
    cat "$work/update.log" >&2
    echo "fetch-pmix-examples: apt-get update of the deb-src lists failed" >&2
    exit 1
}
(cd "$work" && apt_private source --download-only "pmix=$version" >"$work/source.log" 2>&1) || {
    cat "$work/source.log" >&2
    echo "fetch-pmix-examples: cannot download the source of pmix $version" >&2
    exit 1
}
tarball=$(ls "$work"/pmix_*.orig.tar.* | head -1)
rm -rf "$dest"
mkdir -p "$dest"
tar -xf "$tarball" -C "$dest" --strip-components=2 --wildcards '*/examples/*'
echo "$version" >"$dest/.version"
echo "fetch-pmix-examples: OpenPMIx $version examples in $dest"
