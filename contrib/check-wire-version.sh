#!/bin/sh
# check-wire-version.sh [SRC]: the message tags of src/rml/types.h are the ones recorded for the
# current wire protocol version in src/rml/wire_versions.txt. Fails, saying what to do, when the
# tags changed and the version did not (a daemon of the last release would misread this one's
# messages instead of refusing to connect), or when the current version is not recorded.
src=${1:-$(dirname "$0")/../src}
types="$src/rml/types.h"
record="$src/rml/wire_versions.txt"
version=$(sed -n 's/^inline constexpr uint32_t kProtocolVersion = \([0-9]*\);.*/\1/p' "$types")
if [ -z "$version" ]; then
    echo "check-wire-version: error: no kProtocolVersion in $types"
    exit 1
fi
fingerprint=$(grep -E '^inline constexpr Tag [a-z_]+ = [0-9]+;' "$types" | sed 's/ *\/\/.*//' | sha256sum | cut -c1-16)
recorded=$(awk -v v="$version" '$1 == v { print $2 }' "$record")
if [ -z "$recorded" ]; then
    echo "check-wire-version: error: wire protocol $version is not recorded in $record: add the line '$version $fingerprint'"
    exit 1
fi
if [ "$recorded" != "$fingerprint" ]; then
    echo "check-wire-version: error: the message tags in $types changed since wire protocol $version was recorded" \
        "($recorded, now $fingerprint): raise kProtocolVersion to $((version + 1)) and add the line" \
        "'$((version + 1)) $fingerprint' to $record"
    exit 1
fi
echo "wire protocol $version, tags $fingerprint"
