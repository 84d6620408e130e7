#!/bin/sh
# The unit tests that load the build tree's components must not pass without them (issue 14,
# item 12: a skipped GoogleTest exits 0, so a broken component path turned them green). Each is run
# with a component path that holds nothing: it must fail; and with no path at all (run by hand):
# it must exit 77, which CTest reports as skipped.
. "$(dirname "$0")/lib.sh"

empty="$TEST_TMP/no-components"
mkdir -p "$empty"
for t in ras_base_modify_test ras_hosts_test rmaps_base_test rmaps_round_robin_test; do
    bin="$PRTE_BUILDDIR/test/unit/$t"
    if [ ! -x "$bin" ]; then
        echo "SKIP: $bin is not built (GoogleTest not found at configure time)"
        exit 77
    fi
    PRTE_MCA_mca_base_component_path="$empty" "$bin" >"$TEST_TMP/$t.missing.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
        pass "$t fails ($rc) when the component path holds no component"
        expect_line "$t.missing" out "not found in $empty"
    else
        fail "$t exited $rc with an empty component path"
    fi
    env -u PRTE_MCA_mca_base_component_path -u PRTE_BUILDDIR "$bin" >"$TEST_TMP/$t.unset.out" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then pass "$t is skipped (77) when no component directory is named"; else
        fail "$t exited $rc with no component directory named, expected 77"
        tail -5 "$TEST_TMP/$t.unset.out" | sed 's/^/    /'
    fi
    expect_line "$t.unset" out "SKIP: no component directory named"
done

finish
