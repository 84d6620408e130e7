#!/bin/sh
# No #include in src/ reaches up a floor (docs/architecture.md, "Floors"; issue 30): components do
# not include the PMIx host, the runtime and rml do not include the component system, and the
# component system (mca/base) includes neither of them: it rests on util alone. The check must also
# fail when one does: it is run on a copy of src/ with a forbidden include added at each of the
# seams the floors exist for.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-floors.sh"
if sh "$check" "$PRTE_SRCDIR/src" >"$TEST_TMP/tree.out" 2>&1; then
    pass "the source tree keeps its floors ($(tail -1 "$TEST_TMP/tree.out"))"
else
    fail "an include reaches up a floor:"
    sed 's/^/    /' "$TEST_TMP/tree.out"
fi

# seam <name> <file under src/> <header> [<reason>]: a copy of src/ where <file> includes <header>
# must fail, naming the file, the header and the reason (default: ", a higher floor").
seam() {
    copy="$TEST_TMP/src-$1"
    rm -rf "$copy"
    cp -r "$PRTE_SRCDIR/src" "$copy"
    printf '#include "%s"\n' "$3" >>"$copy/$2"
    if sh "$check" "$copy" >"$TEST_TMP/$1.out" 2>&1; then
        fail "$1: the check passed with src/$2 including $3"
    elif grep -q "src/$2:[0-9]* includes $3${4:-, a higher floor}" "$TEST_TMP/$1.out"; then
        pass "$1: the check fails, naming src/$2 and $3"
    else
        fail "$1: the check failed without naming the include:"
        sed 's/^/    /' "$TEST_TMP/$1.out"
    fi
}
seam component-to-host mca/state/dvm/state_dvm_job.cc pmix/server.h
seam runtime-to-frameworks runtime/runtime.h mca/state/base/state_base.h
seam rml-to-parameters rml/rml.h mca/base/param.h
# Lower floors, yet forbidden: the component system knows no DVM (the core parameters that fill
# runtime::Settings and rml::Options are program wiring, program/core_params.h).
seam component-system-to-runtime mca/base/framework.cc runtime/settings.h ": mca/base (the component system) rests on util alone"
seam component-system-to-rml mca/base/component.h rml/rml.h ": mca/base (the component system) rests on util alone"

finish
