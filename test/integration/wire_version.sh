#!/bin/sh
# Issue 26 item 7: mixed builds hung because message tags changed and the wire protocol version did
# not. contrib/check-wire-version.sh holds the tags of src/rml/types.h to the fingerprint recorded
# for the current version; it must also fail on a copy whose tags changed without a new version
# (and on one whose new version is not recorded), and pass once both are done.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-wire-version.sh"
if sh "$check" "$PRTE_SRCDIR/src" >"$TEST_TMP/tree.out" 2>&1; then
    pass "the tags are those recorded for the current version ($(cat "$TEST_TMP/tree.out"))"
else
    fail "$(cat "$TEST_TMP/tree.out")"
fi

copy="$TEST_TMP/src"
mkdir -p "$copy/rml"
cp "$PRTE_SRCDIR/src/rml/types.h" "$PRTE_SRCDIR/src/rml/wire_versions.txt" "$copy/rml/"
sed -i 's/^\(inline constexpr Tag first_dynamic\)/inline constexpr Tag brand_new = 99;\n\1/' "$copy/rml/types.h"
if sh "$check" "$copy" >"$TEST_TMP/added.out" 2>&1; then
    fail "the check passed with a tag added and the same version"
elif grep -q "changed since wire protocol .*raise kProtocolVersion" "$TEST_TMP/added.out"; then
    pass "a tag added without a new version fails, saying to raise it"
else
    fail "unclear failure: $(cat "$TEST_TMP/added.out")"
fi

old=$(sed -n 's/^inline constexpr uint32_t kProtocolVersion = \([0-9]*\);.*/\1/p' "$copy/rml/types.h")
sed -i "s/^inline constexpr uint32_t kProtocolVersion = $old;/inline constexpr uint32_t kProtocolVersion = $((old + 1));/" "$copy/rml/types.h"
if sh "$check" "$copy" >"$TEST_TMP/raised.out" 2>&1; then
    fail "the check passed with a new version nobody recorded"
elif grep -q "not recorded" "$TEST_TMP/raised.out"; then
    pass "a new version must be recorded"
else
    fail "unclear failure: $(cat "$TEST_TMP/raised.out")"
fi

line=$(sed -n "s/.*add the line '\([0-9]* [0-9a-f]*\)'.*/\1/p" "$TEST_TMP/raised.out")
echo "$line" >>"$copy/rml/wire_versions.txt"
if sh "$check" "$copy" >"$TEST_TMP/recorded.out" 2>&1; then pass "a new version, recorded, passes"; else
    fail "$(cat "$TEST_TMP/recorded.out")"
fi
finish
