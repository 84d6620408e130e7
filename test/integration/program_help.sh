#!/bin/sh
# Issue 31 items 3 and 5: each program's help is one page with one usage line; `prted --version`
# answers without the options a start needs; prte_info --param with an unknown component is an
# error naming the components there are, not an empty answer with status 0.
. "$(dirname "$0")/lib.sh"
B="$PRTE_BUILDDIR/src"

for p in prun prterun; do
    case $p in prun) bin="$B/tools/prun/prun" ;; prterun) bin="$B/tools/prterun/prterun" ;; esac
    run "${p}_help" "$bin" --help
    expect_status "${p}_help" 0
    n=$(grep -c "^Usage:" "$TEST_TMP/${p}_help.out")
    [ "$n" = 1 ] && pass "$p --help has one usage line" || fail "$p --help has $n usage lines: $(cat "$TEST_TMP/${p}_help.out")"
    expect_line "${p}_help" out "Usage: $p [options] <program> [arguments] [: [options] <program> [arguments] ...]"
done

run prted_version "$B/prted/prted" --version
expect_status prted_version 0
expect_line prted_version out "prted "
run prted_help "$B/prted/prted" --help
expect_line prted_help out "--version"

run param_unknown "$PRTE_INFO" --param ras nosuch
[ "$(status_of param_unknown)" != 0 ] && pass "an unknown component is an error" || fail "prte_info --param ras nosuch exited 0"
expect_line param_unknown err "framework 'ras' has no component 'nosuch' (it has: hosts"
run param_known "$PRTE_INFO" --param ras hosts
expect_status param_known 0
expect_line param_known out "ras_hosts_default_hostfile"
run param_base "$PRTE_INFO" --param ras base
expect_status param_base 0
finish
