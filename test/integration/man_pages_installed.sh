#!/bin/sh
# `make install` installs a man page (man1) for every program, and each page names every option
# the program's --help lists: the pages are generated from --help, so this fails when a page is
# missing, stale or lost an option. Installs into a DESTDIR of the test's own.
. "$PRTE_SRCDIR/test/integration/lib.sh"

if ! grep -q '^man1_MANS = ' "$PRTE_BUILDDIR/Makefile"; then
    echo "SKIP: this build has no man pages (configure found no help2man: apt-get install help2man)"
    exit 77
fi
dest="$TEST_TMP/dest"
if ! make -s -C "$PRTE_BUILDDIR" install-man DESTDIR="$dest" >"$TEST_TMP/install.log" 2>&1; then
    fail "make install-man failed"
    sed 's/^/    /' "$TEST_TMP/install.log"
    finish
fi

# The options a --help lists: the words starting with '-' at the start of its option lines
# ("  -n,--np N" gives -n and --np).
options_of() {
    "$1" --help 2>&1 | sed -n 's/^  *\(-[^ ]*\).*/\1/p' | tr ',' '\n' | grep '^-'
}

for program in prte:src/tools/prte/prte prted:src/prted/prted prun:src/tools/prun/prun pterm:src/tools/pterm/pterm \
    prterun:src/tools/prterun/prterun palloc:src/tools/palloc/palloc pstat:src/tools/pstat/pstat prte_info:src/tools/prte_info/prte_info; do
    name=${program%%:*}
    page=$(find "$dest" -path "*/man1/$name.1" | head -1)
    if [ -z "$page" ]; then
        fail "no man1/$name.1 installed"
        continue
    fi
    # The page's text without roff escapes and fonts.
    sed -e 's/\\f[BIRP]//g' -e 's/\\[,\/]//g' -e 's/\\-/-/g' "$page" >"$TEST_TMP/$name.txt"
    options=$(options_of "$PRTE_BUILDDIR/${program#*:}")
    [ -n "$options" ] || fail "$name --help lists no options"
    missing=
    for option in $options; do
        grep -qF -- "$option" "$TEST_TMP/$name.txt" || missing="$missing $option"
    done
    if [ -z "$missing" ]; then
        pass "man1/$name.1 names all $(echo "$options" | wc -w) options of $name --help"
    else
        fail "man1/$name.1 lacks:$missing"
    fi
    grep -q '^\.SH NAME' "$page" && grep -q '^\.SH "SEE ALSO"' "$page" && pass "$name.1 has NAME and SEE ALSO" ||
        fail "$name.1 lacks NAME or SEE ALSO"
done

finish
