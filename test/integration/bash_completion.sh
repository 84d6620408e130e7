#!/bin/sh
# Issue 31 item 6: bash completion for prte, prun, prterun, pterm, palloc and prte_info. Options come
# from each program's --help; MCA parameter names and values from prte_info --parsable. The script
# is installed under every program's name where Debian's bash-completion loader finds it.
. "$PRTE_SRCDIR/test/integration/lib.sh"
SCRIPT="$PRTE_SRCDIR/contrib/bash-completion/prte"
PATH="$PRTE_BUILDDIR/src/tools/prte_info:$PATH"
export PATH

# complete <expected word> <words...>: what completing the last word offers must include the first.
completes() {
    want=$1
    shift
    got=$(bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _prte_complete "$1"; printf "%s\n" "${COMPREPLY[@]}"' \
        "$SCRIPT" "$@" 2>"$TEST_TMP/complete.err")
    if printf '%s\n' "$got" | grep -qxF -- "$want"; then pass "'$*' offers '$want'"; else
        fail "'$*' does not offer '$want': $(printf '%s' "$got" | tr '\n' ' ') $(cat "$TEST_TMP/complete.err")"
    fi
}
# offers_none <unexpected word> <words...>
offers_not() {
    unwanted=$1
    shift
    got=$(bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _prte_complete "$1"; printf "%s\n" "${COMPREPLY[@]}"' \
        "$SCRIPT" "$@" 2>/dev/null)
    printf '%s\n' "$got" | grep -qxF -- "$unwanted" && fail "'$*' offers '$unwanted'" || pass "'$*' does not offer '$unwanted'"
}

PRUN="$PRTE_BUILDDIR/src/tools/prun/prun"
PRTE="$PRTE_BUILDDIR/src/tools/prte/prte"
completes --output-filename "$PRUN" --out
completes --map-by "$PRUN" -n 2 --ma
completes node "$PRUN" --map-by no
completes l3cache "$PRUN" --bind-to l3
completes --debug-daemons-file "$PRTE" --debug
completes --log-file "$PRTE" --log
completes --verbose "$PRTE_BUILDDIR/src/tools/pterm/pterm" --verb
completes --parsable prte_info --pars
# MCA parameter names, and the values a parameter takes: a framework's components, a bool's words.
completes ras_base_verbose "$PRTE" --prtemca ras_b
completes prte_elastic_mode "$PRUN" --mca prte_el
# The PMIx host's parameters too, registered with the others (issue 46 item 4; they were not).
completes pmix_server_verbose "$PRTE" --prtemca pmix_server_v
completes hosts "$PRTE" --prtemca ras h
completes ^slurm "$PRTE" --prtemca ras ^
completes true "$PRTE" --prtemca prte_elastic_mode t
completes ras prte_info --param r
completes ssh prte_info --param ras s
# Past the program, prun's words are the program's: no prun option is offered.
offers_not --map-by "$PRUN" -n 2 ./a.out --ma

# Installed under each name where bash-completion's loader looks ($prefix/share/bash-completion/completions).
stage="$TEST_TMP/stage"
if ! make -s -C "$PRTE_BUILDDIR" install-bashcompletionDATA install-data-hook DESTDIR="$stage" >"$TEST_TMP/install.log" 2>&1; then
    fail "installing the completion failed: $(cat "$TEST_TMP/install.log")"
fi
prefix=$(sed -n 's/^prefix = //p' "$PRTE_BUILDDIR/Makefile")
dir="$stage$prefix/share/bash-completion/completions"
for p in prte prted prun prterun pterm palloc pstat prte_info; do
    [ -f "$dir/$p" ] && pass "installed as $dir/$p" || fail "$dir/$p is missing: $(ls "$dir" 2>&1)"
done
if [ -f /usr/share/bash-completion/bash_completion ]; then
    loaded=$(XDG_DATA_DIRS="$stage$prefix/share" bash -c '. /usr/share/bash-completion/bash_completion
        __load_completion prun && complete -p prun' 2>&1)
    case $loaded in
    *"-F _prte_complete"*) pass "bash-completion's loader finds prun's completion" ;;
    *) fail "bash-completion did not load prun's completion: $loaded" ;;
    esac
else
    fail "bash-completion is not installed (contrib/install-deps.sh installs it)"
fi
finish
