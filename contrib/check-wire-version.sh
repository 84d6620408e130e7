#!/bin/sh
# check-wire-version.sh [SRC]: the wire protocol version (src/rml/types.h, kProtocolVersion) is
# raised with every change a daemon of the previous version could not read. Two things are held to
# what src/rml/wire_versions.txt records for the current version:
#   - the message tags of src/rml/types.h (their fingerprint, the record's second field);
#   - from version 7, the golden encodings of the messages our processes send each other, recorded
#     for that version in test/unit/wire_golden.inc (their lines' fingerprint, the third field).
#     The decoders' unit tests (plm_messages_test, grpcomm_direct_test, pmix_relay_messages_test:
#     test/unit/wire_golden.h) hold the encoders to those bytes; this check holds the bytes to the
#     version, so a payload change cannot be recorded by regenerating the current version's lines:
#     it needs a new version, with lines of its own.
# Fails, saying what to do, when either changed and the version did not (a daemon of the last
# release would misread this one's messages instead of refusing to connect), or when the current
# version is not recorded.
src=${1:-$(dirname "$0")/../src}
types="$src/rml/types.h"
record="$src/rml/wire_versions.txt"
golden="$src/../test/unit/wire_golden.inc"
version=$(sed -n 's/^inline constexpr uint32_t kProtocolVersion = \([0-9]*\);.*/\1/p' "$types")
if [ -z "$version" ]; then
    echo "check-wire-version: error: no kProtocolVersion in $types"
    exit 1
fi
if [ ! -f "$golden" ]; then
    echo "check-wire-version: error: no golden encodings file $golden"
    exit 1
fi
next=$((version + 1))
print_golden="PRTE_GOLDEN_UPDATE=1 with --gtest_filter='*Golden*', test/unit/plm_messages_test, test/unit/grpcomm_direct_test and test/unit/pmix_relay_messages_test in the build directory print them, in that order"
regenerate="append wire protocol $next's golden lines to $golden ($print_golden)"
fingerprint=$(grep -E '^inline constexpr Tag [a-z_]+ = [0-9]+;' "$types" | sed 's/ *\/\/.*//' | sha256sum | cut -c1-16)
# golden_of V: the fingerprint of version V's golden lines, or nothing when it has none.
golden_of() {
    lines=$(grep -E "^\{$1, " "$golden")
    [ -n "$lines" ] && printf '%s\n' "$lines" | sha256sum | cut -c1-16
}
encodings=$(golden_of "$version")
if [ -z "$encodings" ]; then
    echo "check-wire-version: error: $golden records no golden encodings for wire protocol $version:" \
        "$print_golden"
    exit 1
fi
recorded=$(awk -v v="$version" '$1 == v { print $2 }' "$record")
recorded_encodings=$(awk -v v="$version" '$1 == v { print $3 }' "$record")
if [ -z "$recorded" ]; then
    echo "check-wire-version: error: wire protocol $version is not recorded in $record: add the line" \
        "'$version $fingerprint $encodings'"
    exit 1
fi
if [ "$recorded" != "$fingerprint" ]; then
    echo "check-wire-version: error: the message tags in $types changed since wire protocol $version was recorded" \
        "($recorded, now $fingerprint): raise kProtocolVersion to $next and $regenerate; this check then" \
        "prints wire protocol $next's line for $record"
    exit 1
fi
if [ -z "$recorded_encodings" ]; then
    echo "check-wire-version: error: wire protocol $version's line in $record records no golden encodings:" \
        "make it '$version $recorded $encodings'"
    exit 1
fi
if [ "$recorded_encodings" != "$encodings" ]; then
    echo "check-wire-version: error: the golden encodings of wire protocol $version in $golden changed since it" \
        "was recorded ($recorded_encodings, now $encodings): a message's payload changed, so raise" \
        "kProtocolVersion to $next, restore version $version's lines, $regenerate, and add wire protocol $next's" \
        "line to $record"
    exit 1
fi
echo "wire protocol $version, tags $fingerprint, golden encodings $encodings"
