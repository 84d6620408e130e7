#!/bin/sh
# Fails when src/ holds a function-local mutable static (a hidden global) that
# contrib/function-statics.txt does not list, or when that list names one that is gone.
# What counts: an indented `static` variable in a .cc or .c file that is not const or constexpr
# (a static function or member declaration has a parenthesis before its =, ; or {).
# Usage: sh contrib/check-statics.sh [source-dir [list]]
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../src}
list=${2:-$here/function-statics.txt}
found=$(mktemp)
allowed=$(mktemp)
trap 'rm -f "$found" "$allowed"' EXIT
(cd "$src" && find . -type f \( -name '*.cc' -o -name '*.c' \) | sed 's#^\./##' | sort | xargs awk '
/^[ \t]+static[ \t]/ {
    line = $0
    sub(/^[ \t]+/, "", line)
    if (line ~ /^static[ \t]+(const|constexpr|inline)[ \t]/) next
    head = line
    sub(/[=;{].*$/, "", head)
    if (head ~ /\(/) next
    decl = line
    sub(/[ \t]*(=|;|\{).*$/, "", decl)
    printf "src/%s: %s\n", FILENAME, decl
}') | sort >"$found"
# The list: "src/<file>: <declaration>  # why it is process-wide"; comments and blank lines skipped.
grep -v '^[[:space:]]*\(#\|$\)' "$list" | sed 's/[[:space:]]*#.*$//' | sort >"$allowed"
status=0
unlisted=$(comm -23 "$found" "$allowed")
gone=$(comm -13 "$found" "$allowed")
if [ -n "$unlisted" ]; then
    echo "check-statics: function-local mutable statics not in contrib/function-statics.txt (give the state an owner, or list it with the reason it is process-wide):"
    echo "$unlisted" | sed 's/^/    /'
    status=1
fi
if [ -n "$gone" ]; then
    echo "check-statics: contrib/function-statics.txt lists statics that are gone (remove them from it):"
    echo "$gone" | sed 's/^/    /'
    status=1
fi
[ $status -eq 0 ] && echo "check-statics: $(wc -l <"$found") function-local mutable statics, each listed with its reason"
exit $status
