#!/bin/sh
# Issue 31 item 4: each rank's output to its own files, PRRTE's layout, end to end through a DVM.
#   --output dir=DIR      DIR/<job>/rank.N/stdout and stderr, and still on the terminal
#   --output file=PATH:nocopy   PATH.<job>.N with both streams, and nothing on the terminal
#   --output-filename DIR (the older spelling), :nojobid
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
start_dvm

cd "$TEST_TMP" || exit 1
say='echo "out $PRTE_RANK"; echo "err $PRTE_RANK" >&2'
run dir "$PRUN" -n 3 --map-by :OVERSUBSCRIBE --output dir=outdir sh -c "$say"
expect_status dir 0
job=$(ls outdir)
for r in 0 1 2; do
    [ "$(cat "outdir/$job/rank.$r/stdout")" = "out $r" ] && [ "$(cat "outdir/$job/rank.$r/stderr")" = "err $r" ] &&
        pass "rank $r's stdout and stderr in outdir/$job/rank.$r" || fail "rank $r's files: $(find outdir -type f)"
done
expect_line dir out "out 2"
expect_line dir err "err 2"

run file "$PRUN" -n 2 --output file=outfile:nocopy sh -c "$say"
expect_status file 0
n=$(ls outfile.* 2>/dev/null | wc -l)
[ "$n" = 2 ] && grep -qx "err 1" outfile.*.1 && grep -qx "out 1" outfile.*.1 &&
    pass "file=: one file per rank with both streams" || fail "file=: $(ls outfile.* 2>&1)"
expect_no_line file out "out"
expect_no_line file err "err"

run old "$PRUN" -n 2 --output-filename olddir:nojobid echo hello
expect_status old 0
[ "$(cat olddir/rank.1/stdout)" = "hello" ] && pass "--output-filename DIR:nojobid writes DIR/rank.N/stdout" ||
    fail "--output-filename: $(find olddir 2>&1)"
stop_dvm
finish
