# Many one-shot prterun runs with an empty stdin: prun pushes stdin's end at once and must wait for
# PMIx's answer before it leaves. It did not, and about 1 one-shot in 60 printed the DVM's
# "PMIX ERROR: UNREACHABLE ... pmix_server.c line 3098" (the answer found the connection closed).
#
# Its own test, run alone (PRTE_ALONE_TESTS): 150 DVMs started and stopped one after another take
# about 5 s on an idle 2-core machine, but several minutes beside three other tests, where they
# ran dvm_stdin past CTest's limit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

: >"$TEST_TMP/oneshots.err"
for i in $(seq 150); do
    "$PRTE_BUILDDIR/src/tools/prterun/prterun" -n 2 true </dev/null 2>>"$TEST_TMP/oneshots.err" ||
        echo "run $i exited $?" >>"$TEST_TMP/oneshots.err"
done
[ ! -s "$TEST_TMP/oneshots.err" ] && pass "150 one-shots with an empty stdin: nothing on stderr" ||
    fail "one-shots with an empty stdin: $(sort "$TEST_TMP/oneshots.err" | uniq -c | head -3)"

# Each one-shot ended its DVM: no prte, prted or job process of this test is left.
left=$(for prog in prte prted true; do test_pids -x "$prog"; done)
[ -z "$left" ] && pass "no DVM or job process left" || fail "left running: $(ps -o pid=,args= -p $left)"

finish
