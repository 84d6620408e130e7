# prun's stdin reaches rank 0 of the job (PRRTE's default) and only rank 0; its end ends the
# reader; a large input arrives whole; --stdin all|none|<rank> choose who reads it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

start_dvm

# Two cats, one input: rank 0 prints it, rank 1 reads /dev/null and prints nothing.
printf 'a\nb\n' >"$TEST_TMP/ab.txt"
run two_cats "$PRUN" -n 2 cat <"$TEST_TMP/ab.txt"
expect_status two_cats 0
if [ "$(grep -c '^a$' "$TEST_TMP/two_cats.out")" -eq 1 ] && [ "$(grep -c '^b$' "$TEST_TMP/two_cats.out")" -eq 1 ] &&
    [ "$(wc -l <"$TEST_TMP/two_cats.out")" -eq 2 ]; then
    pass "a and b printed once: only rank 0 reads stdin"
else
    fail "expected a and b once each: $(cat "$TEST_TMP/two_cats.out")"
fi

# From a pipe too, as a shell user writes it.
printf 'a\nb\n' | "$PRUN" -n 2 cat >"$TEST_TMP/piped.out" 2>"$TEST_TMP/piped.err"
if [ "$(tr '\n' ' ' <"$TEST_TMP/piped.out")" = "a b " ]; then pass "piped stdin reaches rank 0"; else
    fail "piped stdin: '$(cat "$TEST_TMP/piped.out")' $(cat "$TEST_TMP/piped.err")"
fi

# Much more than a pipe holds: nothing lost, nothing reordered.
head -c 3000000 /dev/urandom >"$TEST_TMP/big.bin"
run big_count "$PRUN" -n 1 wc -c <"$TEST_TMP/big.bin"
expect_status big_count 0
if [ "$(tr -d ' ' <"$TEST_TMP/big_count.out")" = "3000000" ]; then pass "3 MB of stdin counted whole"; else
    fail "wc -c counted '$(cat "$TEST_TMP/big_count.out")', expected 3000000"
fi
run big_sum "$PRUN" -n 1 cksum <"$TEST_TMP/big.bin"
if [ "$(cat "$TEST_TMP/big_sum.out")" = "$(cksum <"$TEST_TMP/big.bin")" ]; then pass "3 MB of stdin arrive unchanged"; else
    fail "cksum through prun '$(cat "$TEST_TMP/big_sum.out")' differs from '$(cksum <"$TEST_TMP/big.bin")'"
fi

# An empty stdin, and a program that never reads it.
run empty "$PRUN" -n 1 true </dev/null
expect_status empty 0
run empty_cat "$PRUN" -n 1 cat </dev/null
expect_status empty_cat 0
run unread "$PRUN" -n 1 true <"$TEST_TMP/big.bin"
expect_status unread 0

# A reader that leaves early: the rest of the input is dropped, nothing hangs.
run early "$PRUN" -n 1 head -c 10 <"$TEST_TMP/big.bin"
expect_status early 0
[ "$(wc -c <"$TEST_TMP/early.out")" -eq 10 ] && pass "head read its 10 bytes and left" ||
    fail "head printed $(wc -c <"$TEST_TMP/early.out") bytes"

# --stdin: every rank, a chosen rank, or nobody.
run all_ranks "$PRUN" -n 2 --stdin all cat <"$TEST_TMP/ab.txt"
[ "$(grep -c '^a$' "$TEST_TMP/all_ranks.out")" -eq 2 ] && pass "--stdin all: both ranks read it" ||
    fail "--stdin all: $(cat "$TEST_TMP/all_ranks.out")"
run rank1 "$PRUN" -n 2 --output tag --stdin 1 cat <"$TEST_TMP/ab.txt"
expect_line rank1 out ",1]<stdout>: a"
expect_no_line rank1 out ",0]<stdout>: a"
run nobody "$PRUN" -n 2 --stdin none cat <"$TEST_TMP/ab.txt"
expect_status nobody 0
[ ! -s "$TEST_TMP/nobody.out" ] && pass "--stdin none: nobody reads it" || fail "--stdin none: $(cat "$TEST_TMP/nobody.out")"

# prterun hands its stdin to the prun it runs.
printf 'a\nb\n' | "$PRTE_BUILDDIR/src/tools/prterun/prterun" -n 2 cat >"$TEST_TMP/prterun.out" 2>"$TEST_TMP/prterun.err"
if [ "$(tr '\n' ' ' <"$TEST_TMP/prterun.out")" = "a b " ]; then pass "prterun: stdin reaches rank 0"; else
    fail "prterun: '$(cat "$TEST_TMP/prterun.out")' $(cat "$TEST_TMP/prterun.err")"
fi

# The DVM is unharmed: it still runs jobs, and leaves nothing behind.
run after "$PRUN" -n 1 echo still-here
expect_line after out "still-here"
leftovers=$(dvm_leftovers | grep -v "prte" || true)
[ -z "$leftovers" ] && pass "no job process left" || fail "left running: $leftovers"
stop_dvm

finish
