#!/bin/sh
# The prun options of issue 41 item 5 that change what happens, on a DVM of 2 local nodes of 2
# slots: --app runs one context a line (three here); -x PREFIX*, --set-env, --unset-env (the
# daemons' own variables too), --prepend-env/--append-env (applied in the order given) and
# --fwd-environment shape each process's environment; --runtime-options error-nonzero-status=false
# lets the job run on past a rank that exits non-zero (and prun exits with that status), where by
# default the job is ended; --oversubscribe, --wd, --path, -q, --report-pid, --pid and
# --help <option> do what they say; --xterm says it needs a display; autorestart restarts a
# rank that always fails, which then ends the job with its status (prun_restarts_failed_rank.sh
# tests restarts in full); --output tag-detailed names each line's node and pid (the rank's own),
# --output xml (--xml) wraps each line, escaped, in an element inside <mpirun>; a job its rank
# spawns that fails gives prun its status, unless --report-child-jobs-separately (a spawn refused
# before its job started does not: its spawner was told).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

# A variable of the daemons' environment (they inherit prte's), which prun's does not have.
PRUNTEST_DAEMON_ONLY=daemon
export PRUNTEST_DAEMON_ONLY
start_local_nodes_dvm 2 2 --prtemca prte_set_slots 2
unset PRUNTEST_DAEMON_ONLY

# --- --app: three contexts, one a line, each with its own options; -x beside --app reaches all ---
cat >"$TEST_TMP/apps" <<'APPS'
# an MPMD job of three programs
-n 1 sh -c 'echo "first app=$PRTE_APP_INDEX rank=$PMIX_RANK common=$COMMON"'
-n 2 -x OWN=two sh -c 'echo "second app=$PRTE_APP_INDEX rank=$PMIX_RANK own=$OWN common=$COMMON"'
-n 1 sh -c 'echo "third app=$PRTE_APP_INDEX rank=$PMIX_RANK own=${OWN:-unset}"'
APPS
run app "$PRUN" -x COMMON=all --app "$TEST_TMP/apps"
expect_status app 0
expect_line app out "first app=0 rank=0 common=all"
expect_line app out "second app=1 rank=1 own=two common=all"
expect_line app out "second app=1 rank=2 own=two common=all"
expect_line app out "third app=2 rank=3 own=unset"
[ "$(wc -l <"$TEST_TMP/app.out")" -eq 4 ] && pass "--app ran 4 processes of 3 contexts" ||
    fail "--app output: $(cat "$TEST_TMP/app.out")"
run app_and_program "$PRUN" --app "$TEST_TMP/apps" hostname
expect_status app_and_program 2
expect_line app_and_program err "give every program in the file"

# --- environment options ---
PRUNTEST_A=1 PRUNTEST_B=2 run x_prefix "$PRUN" -n 1 -x 'PRUNTEST_*' sh -c 'echo "a=$PRUNTEST_A b=$PRUNTEST_B"'
expect_line x_prefix out "a=1 b=2"
run set_env "$PRUN" -n 2 --set-env GREETING=hello sh -c 'echo "greeting=$GREETING"'
[ "$(grep -c '^greeting=hello$' "$TEST_TMP/set_env.out")" = 2 ] && pass "--set-env reached both ranks" ||
    fail "--set-env: $(cat "$TEST_TMP/set_env.out")"
# Without --unset-env the daemons' variable reaches the process; with it (as a prefix) it does not.
run daemon_var "$PRUN" -n 1 sh -c 'echo "daemon=${PRUNTEST_DAEMON_ONLY:-unset}"'
expect_line daemon_var out "daemon=daemon"
run unset_env "$PRUN" -n 1 --unset-env 'PRUNTEST_DAEMON*' sh -c 'echo "daemon=${PRUNTEST_DAEMON_ONLY:-unset}"'
expect_line unset_env out "daemon=unset"
# Edits of the value the process's node has, in the order given.
run prepend "$PRUN" -n 1 --prepend-env 'PRUNTEST_DAEMON_ONLY[:]' pre --append-env 'PRUNTEST_DAEMON_ONLY[;]' post \
    sh -c 'echo "edited=$PRUNTEST_DAEMON_ONLY"'
expect_line prepend out "edited=pre:daemon;post"
run order1 "$PRUN" -n 1 --set-env ORDERED=1 --prepend-env 'ORDERED[:]' x sh -c 'echo "ordered=$ORDERED"'
expect_line order1 out "ordered=x:1"
run order2 "$PRUN" -n 1 --prepend-env 'ORDERED[:]' x --set-env ORDERED=1 sh -c 'echo "ordered=$ORDERED"'
expect_line order2 out "ordered=1"
PRUNTEST_FWD=only-here run fwd_none "$PRUN" -n 1 sh -c 'echo "fwd=${PRUNTEST_FWD:-unset}"'
expect_line fwd_none out "fwd=unset"
PRUNTEST_FWD=only-here run fwd_env "$PRUN" -n 1 --fwd-environment sh -c 'echo "fwd=${PRUNTEST_FWD:-unset} rank=$PMIX_RANK"'
expect_line fwd_env out "fwd=only-here rank=0"
run prepend_bad "$PRUN" -n 1 --prepend-env PATH /x hostname
expect_status prepend_bad 2
expect_one_line_errors prepend_bad

# --- --runtime-options error-nonzero-status: rank 0 exits 3 at once; rank 1 waits for that, then
# runs on for 3 s. By default the job ends at rank 0's exit (rank 1 never says "survived"). ---
failing_pair() {
    echo "if [ \$PMIX_RANK = 0 ]; then : >$TEST_TMP/$1.rank0; exit 3; fi
          while [ ! -f $TEST_TMP/$1.rank0 ]; do sleep 0.05; done; sleep 3; echo survived"
}
run nonzero_default "$PRUN" -n 2 sh -c "$(failing_pair nonzero_default)"
expect_status nonzero_default 3
expect_no_line nonzero_default out "survived"
run nonzero_false "$PRUN" -n 2 --runtime-options error-nonzero-status=false sh -c "$(failing_pair nonzero_false)"
expect_status nonzero_false 3
expect_line nonzero_false out "survived"
run autorestart "$PRUN" -n 1 --runtime-options autorestart,max-restarts=2 false
expect_status autorestart 1
expect_line autorestart err "exited with status 1"

# --- placement, directories, reports ---
run five "$PRUN" -n 5 hostname
expect_status five 1
run five_over "$PRUN" -n 5 --oversubscribe hostname
expect_status five_over 0
[ "$(wc -l <"$TEST_TMP/five_over.out")" -eq 5 ] && pass "--oversubscribe ran 5 on 4 slots" || fail "--oversubscribe: $(cat "$TEST_TMP/five_over.out")"
mkdir "$TEST_TMP/wd" "$TEST_TMP/bin"
run wd "$PRUN" -n 1 -wd "$TEST_TMP/wd" pwd
expect_line wd out "$TEST_TMP/wd"
printf '#!/bin/sh\necho "from path"\n' >"$TEST_TMP/bin/prun-path-test"
chmod +x "$TEST_TMP/bin/prun-path-test"
run path "$PRUN" -n 1 --path "$TEST_TMP/bin" prun-path-test
expect_line path out "from path"
run root "$PRUN" -n 1 --allow-run-as-root true
expect_line root err "prun: note: --allow-run-as-root: accepted"
run root_quiet "$PRUN" -q -n 1 --allow-run-as-root true
expect_status root_quiet 0
[ ! -s "$TEST_TMP/root_quiet.err" ] && pass "-q prints no note" || fail "-q: $(cat "$TEST_TMP/root_quiet.err")"
run report_pid "$PRUN" --report-pid "$TEST_TMP/prun.pid" -n 1 true
expect_status report_pid 0
grep -qE '^[0-9]+$' "$TEST_TMP/prun.pid" && pass "--report-pid wrote a pid" || fail "--report-pid: $(cat "$TEST_TMP/prun.pid" 2>&1)"
run by_pid "$PRUN" --pid "$DVM_PID" -n 1 echo by-pid
expect_line by_pid out "by-pid"
run by_bad_pid "$PRUN" --pid 1 -n 1 true
expect_status by_bad_pid 1

# --- --output tag-detailed: [job,rank][node:pid], the pid the rank itself has ---
run tag_detailed "$PRUN" -n 2 --map-by node --output tag-detailed sh -c 'echo "pid=$$"'
expect_status tag_detailed 0
for r in 0 1; do
    n=$(grep -cE "^\[[0-9]+,$r\]\[node[12]:([0-9]+)\]<stdout>: pid=\1\$" "$TEST_TMP/tag_detailed.out")
    [ "$n" = 1 ] && pass "--output tag-detailed: rank $r's line names its node and its own pid" ||
        { fail "--output tag-detailed, rank $r: $n line(s)"; sed 's/^/    /' "$TEST_TMP/tag_detailed.out"; }
done
[ "$(cut -d']' -f2 "$TEST_TMP/tag_detailed.out" | sort -u | wc -l)" = 2 ] && pass "two ranks, two places" ||
    fail "--output tag-detailed places: $(cat "$TEST_TMP/tag_detailed.out")"

# --- --output xml / --xml: each line an element, &, <, > and the newline escaped, in <mpirun> ---
run xml "$PRUN" -n 1 --output xml sh -c 'echo "a<b> & c"; echo oops >&2'
expect_status xml 0
printf '<mpirun>\n<stdout rank="0">a&lt;b&gt; &amp; c&#010;</stdout>\n</mpirun>\n' >"$TEST_TMP/xml.want"
cmp -s "$TEST_TMP/xml.want" "$TEST_TMP/xml.out" && pass "--output xml: stdout is the XML document" ||
    { fail "--output xml stdout:"; sed 's/^/    /' "$TEST_TMP/xml.out"; }
expect_line xml err '<stderr rank="0">oops&#010;</stderr>'
run xml_old "$PRUN" -n 1 --xml echo hi
expect_line xml_old out '<stdout rank="0">hi&#010;</stdout>'
expect_line xml_old err "--xml is PRRTE's older spelling of --output xml"

# --- a job rank 0 spawns (2 x false) fails: prun exits with its status, or with its own job's
# (0) under --report-child-jobs-separately; the DVM's line names the failed job either way ---
run child_fails "$PRUN" -n 1 "$CLIENTS/spawn" --child-may-fail /bin/false
expect_status child_fails 1
expect_line child_fails out "spawn child"
expect_line child_fails err "--report-child-jobs-separately"
run child_sep "$PRUN" -n 1 --report-child-jobs-separately "$CLIENTS/spawn" --child-may-fail /bin/false
expect_status child_sep 0
expect_line child_sep err "ended with status 1"
run child_ok "$PRUN" -n 1 "$CLIENTS/spawn" --child-may-fail /bin/true
expect_status child_ok 0
# A spawn refused before its job started (no room) has no exit status: the spawner was answered
# with the error and handled it, so prun's status stays its own.
run child_refused "$PRUN" -n 1 "$CLIENTS/spawn" --refused /bin/true
expect_status child_refused 0
expect_line child_refused out "spawn refused: "
expect_line child_refused err "failed: not enough slots"

# --- --xterm, --help <option> ---
run xterm env -u DISPLAY "$PRUN" --xterm 0 -n 1 true
expect_status xterm 2
expect_line xterm err "needs an X display (DISPLAY is not set)"
run help_map "$PRUN" --help map-by
expect_status help_map 0
expect_line help_map out "prun --map-by, --mapby POLICY"
run help_bad "$PRUN" --help no-such-option
expect_status help_bad 2
expect_line help_bad err "prun has no option named 'no-such-option'"

finish
