#!/bin/sh
# Fails when src/ holds mutable state with static storage (a hidden global) that
# contrib/function-statics.txt does not list, or when that list names one that is gone.
# What counts, in a .cc or .c file:
#   - a function-local `static` variable that is not const or constexpr, however it is
#     initialised (`= x`, `{x}`, `(x)`, or not at all);
#   - a variable defined at namespace scope (in a named or anonymous namespace, or at file
#     scope, `static` or not) that is not const or constexpr;
#   - a static data member declared in a class of a .cc file that is not const or constexpr.
# A function's declaration or definition, a type, a `using`, an `extern` declaration and a
# constant are not state. The scan follows braces (namespace, class, function, initialiser) after
# taking out comments, string and character literals and preprocessor lines, so a `static` inside
# a function is told from a static member function declared in a class.
# Usage: sh contrib/check-statics.sh [source-dir [list]]
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../src}
list=${2:-$here/function-statics.txt}
found=$(mktemp)
allowed=$(mktemp)
trap 'rm -f "$found" "$allowed"' EXIT
(cd "$src" && find . -type f \( -name '*.cc' -o -name '*.c' \) | sed 's#^\./##' | sort | xargs awk '
# The text of a statement with template arguments taken out (nested <...>), so that the
# parenthesis of std::function<void()> is not taken for a function declarator.
function untemplate(s,    out, i, c, depth) {
    out = ""; depth = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "<" && substr(s, i + 1, 1) != "<" && substr(s, i - 1, 1) != "<" && substr(s, i + 1, 1) != "=") { depth++; continue }
        if (c == ">" && depth > 0) { depth--; continue }
        if (depth == 0) out = out c
    }
    return out
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# The declaration part of a variable statement: up to its initialiser.
function declaration(s) {
    s = trim(s)
    sub(/[ \t]*(=|;|\{|\().*$/, "", s)
    return s
}
# const or constexpr itself: "const char* p" is a mutable pointer (to constants), "char* const p"
# and "const char* const p" are not.
function is_constant(s,    d) {
    if (s ~ /(^|[ \t])constexpr[ \t]/) return 1
    d = untemplate(declaration(s))
    if (d ~ /\*/) return d ~ /\*[ \t]*const[ \t]+[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])*$/
    return d ~ /(^|[ \t])const[ \t]/
}
# A statement at namespace or class scope that declares no variable.
function not_a_variable(s,    head) {
    if (s ~ /^(using|typedef|namespace|template|class|struct|union|enum|extern|friend|static_assert|public|private|protected|return|case|default)([ \t:]|$)/) return 1
    if (s ~ /^(static[ \t]+)?(class|struct|union|enum)[ \t]/) return 1
    if (s ~ /operator/) return 1
    head = untemplate(s)
    sub(/[=;{].*$/, "", head)
    # A function declarator: name(...), possibly "= default/delete" after it.
    if (head ~ /\(/) return 1
    if (s ~ /^[A-Za-z_][A-Za-z0-9_:]*::~?[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/) return 1
    if (trim(head) !~ /[A-Za-z_][A-Za-z0-9_]*[ \t*&>]+[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])*$/) return 1
    return 0
}
function report(kind, s) {
    printf "src/%s: %s%s\n", FILENAME, kind, declaration(s)
}
# A statement ended with ";" in the scope on top of the stack.
function statement(s,    top) {
    s = trim(s)
    if (s == "") return
    top = (depth > 0) ? kind[depth] : "ns"
    if (top == "fn" || top == "lambda") {
        if (s ~ /^static[ \t]/ && !is_constant(s)) report("", s)
    } else if (top == "ns") {
        if (!is_constant(s) && !not_a_variable(s)) report("", s)
    } else if (top == "class") {
        if (s ~ /^(inline[ \t]+)?static[ \t]/ && !is_constant(s) && !not_a_variable(s)) report("", s)
    }
}
# What the brace after text s opens, inside a scope of kind "top".
function opens(s, top) {
    s = trim(s)
    # A lambda body: its statements are those of a function, and the statement around it goes on.
    if (s ~ /\][ \t]*(\([^()]*\))?[ \t]*(mutable|noexcept|->[^{]*)?[ \t]*$/) return "lambda"
    if (top == "fn" || top == "lambda" || top == "init") return (s ~ /(=|,|\(|return)$/ || s ~ /^(static[ \t]+)?[A-Za-z_][A-Za-z0-9_:<>, *&]*[ \t*&]+[A-Za-z_][A-Za-z0-9_]*$/ && s !~ /^(else|do|try)$/) ? "init" : "fn"
    if (s ~ /(^|[ \t])namespace([ \t]+[A-Za-z_][A-Za-z0-9_:]*)?$/ || s ~ /^extern[ \t]+"C"/ || s ~ /^extern[ \t]*$/) return "ns"
    if (s ~ /(^|[ \t])(class|struct|union|enum)([ \t]|$)/ && s !~ /\)[ \t]*$/) return (s ~ /enum/) ? "init" : "class"
    if (s ~ /=[ \t]*$/ || s ~ /[,(]$/) return "init"
    if (s ~ /\)[ \t]*(const|override|final|noexcept|mutable|->[^;]*)*[ \t]*$/ || s ~ /\)[ \t]*:/ || s ~ /^(else|do|try)$/) return "fn"
    return "init"
}
FNR == 1 { depth = 0; stmt = ""; in_comment = 0 }
{
    line = $0
    # Block comments, possibly across lines.
    if (in_comment) {
        if (index(line, "*/") == 0) next
        line = substr(line, index(line, "*/") + 2); in_comment = 0
    }
    if (line ~ /^[ \t]*#/) next
    gsub(/\\\\/, "", line)
    gsub(/\\"/, "", line)
    gsub(/"[^"]*"/, "\"\"", line)
    gsub(/\047[^\047]*\047/, "0", line)
    sub(/\/\/.*$/, "", line)
    while ((p = index(line, "/*")) > 0) {
        rest = substr(line, p + 2)
        if ((q = index(rest, "*/")) > 0) line = substr(line, 1, p - 1) " " substr(rest, q + 2)
        else { line = substr(line, 1, p - 1); in_comment = 1 }
    }
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "{") {
            top = (depth > 0) ? kind[depth] : "ns"
            k = opens(stmt, top)
            depth++; kind[depth] = k; saved[depth] = stmt
            if (k == "init") stmt = stmt "{"; else stmt = ""
        } else if (c == "}") {
            k = (depth > 0) ? kind[depth] : "ns"
            if (k == "init") stmt = stmt "}"
            else if (k == "lambda") stmt = saved[depth] "{}"
            else stmt = ""
            if (depth > 0) depth--
        } else if (c == ";") {
            if (depth > 0 && kind[depth] == "init") { stmt = stmt c; continue }
            statement(stmt); stmt = ""
        } else if (c == ":" && depth > 0 && kind[depth] == "class" && trim(stmt) ~ /^(public|private|protected)$/) {
            stmt = ""
        } else stmt = stmt c
    }
    stmt = stmt " "
}') | sort >"$found"
# The list: "src/<file>: <declaration>  # why it is process-wide"; comments and blank lines skipped.
grep -v '^[[:space:]]*\(#\|$\)' "$list" | sed 's/[[:space:]]*#.*$//' | sort >"$allowed"
status=0
unlisted=$(comm -23 "$found" "$allowed")
gone=$(comm -13 "$found" "$allowed")
if [ -n "$unlisted" ]; then
    echo "check-statics: mutable statics and namespace-scope variables not in contrib/function-statics.txt (give the state an owner, or list it with the reason it is process-wide):"
    echo "$unlisted" | sed 's/^/    /'
    status=1
fi
if [ -n "$gone" ]; then
    echo "check-statics: contrib/function-statics.txt lists statics that are gone (remove them from it):"
    echo "$gone" | sed 's/^/    /'
    status=1
fi
[ $status -eq 0 ] && echo "check-statics: $(wc -l <"$found") mutable statics and namespace-scope variables, each listed with its reason"
exit $status
