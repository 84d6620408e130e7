#!/bin/sh
# Fails when a file of src/ includes a header from a higher floor (docs/architecture.md, "Floors").
# Floors, lowest first; a file may include its own floor and any below it:
#   0 util      1 runtime      2 rml      3 mca/base (the component system)
#   4 mca/<framework> (bases and components)      5 elastic (the campaign engine)
#   6 pmix (the PMIx server host)      7 program, prted, tools (program wiring and the mains)
# except that mca/base rests on util alone: it may include floors 0 and 3 only, never runtime or
# rml (the component system knows no DVM; the core parameters, which fill runtime::Settings and
# rml::Options, are program wiring: program/core_params.h).
# Includes of anything else (system headers, prte_config.h, PMIx's own private headers) are ignored.
# Usage: sh contrib/check-floors.sh [source-dir]   (default: the src/ beside this script)
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
# One grep over the tree (a process per file made the check take minutes beside other tests):
# "<path>:<line>:<text>" for every quoted #include, in a stable order.
grep -rn --include='*.h' --include='*.cc' --include='*.c' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src" |
    LC_ALL=C sort -t: -k1,1 -k2,2n | awk -v src="$src/" '
BEGIN { FS = ":" }
{
    # The path (without the source dir), the line number, and the included file between the quotes.
    rel = substr($1, length(src) + 1); line = $2
    target = $0; sub(/^[^"]*"/, "", target); sub(/".*$/, "", target)
}

function floor(path) {
    if (path ~ /^util\//) return 0
    if (path ~ /^runtime\//) return 1
    if (path ~ /^rml\//) return 2
    if (path ~ /^mca\/base\//) return 3
    if (path ~ /^mca\//) return 4
    if (path ~ /^elastic\//) return 5
    if (path ~ /^pmix\//) return 6
    if (path ~ /^(program|prted|tools)\//) return 7
    return -1
}
{
    from = floor(rel); to = floor(target)
    if (from < 0 || to < 0) next
    if (to > from) {
        printf "check-floors: src/%s:%s includes %s, a higher floor (%d > %d): see docs/architecture.md, \"Floors\"\n", rel, line, target, to, from
        bad++
    } else if (from == 3 && to != 0 && to != 3) {
        printf "check-floors: src/%s:%s includes %s: mca/base (the component system) rests on util alone and includes nothing of runtime/ or rml/; pass it plain values instead (docs/architecture.md, \"Floors\")\n", rel, line, target
        bad++
    }
    n++
}
END {
    if (bad) { printf "check-floors: %d include(s) break the floors\n", bad; exit 1 }
    printf "check-floors: %d includes, none reaches up a floor, mca/base none past util\n", n
}'
