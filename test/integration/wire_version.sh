#!/bin/sh
# Issue 26 item 7: mixed builds hung because message tags changed and the wire protocol version did
# not. contrib/check-wire-version.sh holds the tags of src/rml/types.h to the fingerprint recorded
# for the current version, and (issue 46, item 6) the golden encodings test/unit/wire_golden.inc
# records for it; it must also fail on a copy whose tags changed without a new version (and on one
# whose new version is not recorded), and pass once both are done; and on a copy whose golden
# bytes were regenerated in place under the same version.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-wire-version.sh"
if sh "$check" "$PRTE_SRCDIR/src" >"$TEST_TMP/tree.out" 2>&1; then
    pass "the tags are those recorded for the current version ($(cat "$TEST_TMP/tree.out"))"
else
    fail "$(cat "$TEST_TMP/tree.out")"
fi

copy="$TEST_TMP/src"
mkdir -p "$copy/rml" "$TEST_TMP/test/unit"
cp "$PRTE_SRCDIR/src/rml/types.h" "$PRTE_SRCDIR/src/rml/wire_versions.txt" "$copy/rml/"
cp "$PRTE_SRCDIR/test/unit/wire_golden.inc" "$TEST_TMP/test/unit/"
golden="$TEST_TMP/test/unit/wire_golden.inc"
sed -i 's/^\(inline constexpr Tag first_dynamic\)/inline constexpr Tag brand_new = 99;\n\1/' "$copy/rml/types.h"
# must_fail NAME PATTERN WHAT: the check fails on the copy, saying PATTERN (output kept in NAME.out).
must_fail() {
    if sh "$check" "$copy" >"$TEST_TMP/$1.out" 2>&1; then
        fail "the check passed with $3"
    elif grep -q "$2" "$TEST_TMP/$1.out"; then
        pass "the check fails with $3"
    else
        fail "unclear failure with $3: $(cat "$TEST_TMP/$1.out")"
    fi
}
must_fail added "changed since wire protocol .*raise kProtocolVersion" "a tag added and the same version"

old=$(sed -n 's/^inline constexpr uint32_t kProtocolVersion = \([0-9]*\);.*/\1/p' "$copy/rml/types.h")
sed -i "s/^inline constexpr uint32_t kProtocolVersion = $old;/inline constexpr uint32_t kProtocolVersion = $((old + 1));/" "$copy/rml/types.h"
must_fail raised_no_golden "records no golden encodings for wire protocol $((old + 1))" \
    "a new version without golden encodings"
# The new version's golden lines (the bytes are unchanged here: only a tag was added).
grep "^{$old, " "$golden" | sed "s/^{$old, /{$((old + 1)), /" >>"$golden"
must_fail raised "not recorded" "a new version nobody recorded"

line=$(sed -n "s/.*add the line '\([0-9]* [0-9a-f]* [0-9a-f]*\)'.*/\1/p" "$TEST_TMP/raised.out")
echo "$line" >>"$copy/rml/wire_versions.txt"
if sh "$check" "$copy" >"$TEST_TMP/recorded.out" 2>&1; then pass "a new version, recorded, passes"; else
    fail "$(cat "$TEST_TMP/recorded.out")"
fi

# A payload changed and its golden line regenerated in place, under the same version: refused.
sed -i "s/^\({$((old + 1)), \"daemon silence\", \"\)\([0-9a-f]*\)/\1ff\2/" "$golden"
grep -q "^{$((old + 1)), \"daemon silence\", \"ff" "$golden" || fail "could not change a golden line (its format changed?)"
must_fail regenerated "golden encodings of wire protocol $((old + 1)) .* changed since it was recorded.*raise kProtocolVersion" \
    "a golden line changed under the same version"
finish
