#!/bin/sh
# Every option name users already type, run for real: PRRTE v3.0.14's and master's prun, prterun,
# prte, pterm and prte_info tables and its mpirun personality (the ompioptions rows, run as prun
# options), and Open MPI 4.1's `mpirun --help all` (run as prterun options), from
# test/integration/data/option_tables/ (the data and where it came from are in each file's header).
# Each name gets a valid value from values.tsv and runs against the build's programs: prun and
# prterun run /bin/true on a DVM of 2 local nodes, prte starts (daemonized) and is stopped, pterm
# stops a DVM of its own, prte_info prints.
#
# Each answer is one of: accepted (exit 0), refused with a reason (a one-line "prog: error:",
# which counts as handled and is listed), "unknown option" (counted per program), or broken (a
# crash, a hang, an exit without a word: always a failure). A name answered "unknown option" fails
# the test unless pending_unknown.txt lists it (prun's own options, issue 41 item 5); a name listed
# there that is now known fails it too, so that the list shrinks as names are handled.
# The summary line counts the unknown names per program and lists the refused ones.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

LC_ALL=C  # comm and sort agree on the order
export LC_ALL
DATA="$PRTE_SRCDIR/test/integration/data/option_tables"
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"
PERRUN=30  # seconds any one run may take: a hang is a failure, not a stuck test

# --- the names: "program spelling arity key" -------------------------------------------------
# key: the long name without dashes (values.tsv's), arity: how many value words follow.
awk -F'\t' '
    /^#/ || $1 == "source" { next }
    { prog = "" }
    $2 == "prunoptions" || $2 == "ompioptions" { prog = "prun" }
    $2 == "prterunoptions" { prog = "prterun" }
    $2 == "prteoptions" { prog = "prte" }
    $2 == "ptermoptions" { prog = "pterm" }
    $2 == "pinfooptions" { prog = "prte_info" }
    prog == "" { next }
    { arity = $4 == "REQD" ? 1 : 0
      print prog, "--" $3, arity, $3
      if ($5 != "-") print prog, "-" $5, arity, $3 }
' "$DATA/prrte-options.tsv" >"$TEST_TMP/names.raw"
# mpirun 4.1: "   -c|-np|--np <arg0>  text": every spelling, the key from the last (longest) one.
sed -n 's/^ *\(-[-A-Za-z0-9|]*\)\(\( <arg[0-9]>\)*\).*/\1\2/p' "$DATA/mpirun-4.1-help-all.txt" |
    awk '{ n = split($1, s, "|"); key = s[n]; sub(/^-+/, "", key)
           arity = NF - 1; if (key == "help") arity = 0
           for (i = 1; i <= n; i++) print "prterun", s[i], arity, key }' >>"$TEST_TMP/names.raw"
# PRRTE master's table keys are mapby, rankby, bindto, rtos; 3.0's and mpirun's spellings
# --map-by, --rank-by, --bind-to, --runtime-options must keep working beside them.
for p in prun prterun; do
    printf '%s\n' "$p --map-by 1 map-by" "$p --rank-by 1 rank-by" "$p --bind-to 1 bind-to" \
        "$p --runtime-options 1 runtime-options" >>"$TEST_TMP/names.raw"
done
sort -u -k1,2 "$TEST_TMP/names.raw" >"$TEST_TMP/names"
[ "$(grep -c '^prterun ' "$TEST_TMP/names")" -gt 150 ] || fail "too few mpirun/prterun names read from the data"

# --- the files and variables the values name ---------------------------------------------
echo node1 >"$TEST_TMP/hosts1"
echo localhost >"$TEST_TMP/local"
echo "mpi_show_handle_leaks = 0" >"$TEST_TMP/params.conf"
echo "-mca mpi_show_handle_leaks 0 -x FOO" >"$TEST_TMP/tune.conf"
echo "-n 1 /bin/true" >"$TEST_TMP/appfile"
echo "rank 0=node1 slot=0" >"$TEST_TMP/rankfile"
: >"$TEST_TMP/file1"
mkdir -p "$TEST_TMP/outdir" "$TEST_TMP/prte_opts" "$TEST_TMP/pterm_opts"
FOO=bar
export FOO
# --keepalive 8: a pipe held open (read-write, so that opening it does not block) for the run.
mkfifo "$TEST_TMP/keepalive.fifo"
exec 8<>"$TEST_TMP/keepalive.fifo"

# A system server, so that prun --system-server-only finds it (and --system-server-first too).
start_local_nodes_dvm 2 2 --report-uri "$TEST_TMP/dvm.uri" --system-server
PRUN_DVM_PID=$DVM_PID
nspace_of() { sed -n 's/^nspace=//p' "$1/prte.$(id -u)/dvm.$2"; }
PRUN_DVM_NS=$(nspace_of "$TEST_TMP" "$PRUN_DVM_PID")

# The plan, made once: "prog<TAB>spelling<TAB>key<TAB>words" per name, its value from values.tsv
# (the program's own row, else the "*" row); subst fills in the placeholders.
awk -F'\t' '
    FNR == NR { if (/^#/ || NF < 3) next; if ($1 == "*") any[$2] = $3; else own[$1 " " $2] = $3; next }
    { split($0, f, " "); w = f[2]
      if (f[3] > 0) {
          v = ((f[1] " " f[4]) in own) ? own[f[1] " " f[4]] : ((f[4] in any) ? any[f[4]] : "?")
          if (v == "?") { print "MISSING " f[1] " " f[2] > "/dev/stderr"; next }
          if (v != "-") w = f[2] " " v
      }
      print f[1] "\t" f[2] "\t" f[4] "\t" w }' "$DATA/values.tsv" "$TEST_TMP/names" >"$TEST_TMP/plan" 2>"$TEST_TMP/missing"
while read -r _ prog spelling; do fail "values.tsv has no value for $prog's $spelling"; done <"$TEST_TMP/missing"
# subst PID NS URI: the plan's lines on stdin with the placeholders filled in, for the DVM of that
# pid, namespace and URI file.
subst() {
    sed -e "s|@TMP@|$TEST_TMP|g" -e "s|@NODE@|node1|g" -e "s|@HOSTS@|$TEST_TMP/hosts1|g" \
        -e "s|@LOCAL@|$TEST_TMP/local|g" -e "s|@DVMPID@|$1|g" -e "s|@DVMNS@|$2|g" -e "s|@DVMURI@|$3|g" \
        -e "s|@PRTED@|$PRTED|g" -e "s|@PREFIX@|$PRTE_BUILDDIR|g" -e "s|@PRTETMP@|$TEST_TMP/prte_opts|g"
}
subst "$PRUN_DVM_PID" "$PRUN_DVM_NS" "$TEST_TMP/dvm.uri" <"$TEST_TMP/plan" >"$TEST_TMP/plan.jobs"
TAB=$(printf '\t')

# classify PROGRAM SPELLING KEY R STATUS: reads R.err (each lane has its own R); appends to the
# result lists. A refusal counts as one only when its message names the option (by its key): a
# name misread as something else ("-cf" as "-c f") is no refusal of that name, but unknown.
classify() {
    if grep -qiE "unknown option|not expected|unrecognized option" "$4.err"; then
        echo "$1 $2" >>"$TEST_TMP/unknown"
        return
    fi
    if [ "$5" = 0 ]; then
        echo "$1 $2" >>"$TEST_TMP/accepted"
        return
    fi
    reason=$(sed -n -E '/^[a-z_]+: error: /{s/^[a-z_]+: error: //p;q;}' "$4.err")
    if [ "$5" -lt 124 ] && [ -n "$reason" ] && printf '%s\n' "$reason" | grep -qiF -- "$3"; then
        echo "$1 $2: $reason" >>"$TEST_TMP/refused"
    elif [ "$5" -lt 124 ] && [ -n "$reason" ]; then
        echo "$1 $2" >>"$TEST_TMP/unknown"
        echo "$1 $2: $reason" >>"$TEST_TMP/misread"
    else
        echo "$1 $2 (exit $5): $(head -c 300 "$4.err" | tr '\n' ' ')" >>"$TEST_TMP/broken"
    fi
}

# The lanes run in subshells: what they find goes to a file, read at the end.
problem() { echo "$*" >>"$TEST_TMP/broken"; }

# Options that are the whole command (no job), and those that set the process count themselves.
case_no_job() { case "$1" in help | h | version | V | app) return 0 ;; esac; return 1; }
case_count() { case "$1" in n | np | c | N | npernode | npersocket | ppr | pernode) return 0 ;; esac; return 1; }

: >"$TEST_TMP/unknown"; : >"$TEST_TMP/accepted"; : >"$TEST_TMP/refused"; : >"$TEST_TMP/broken"; : >"$TEST_TMP/misread"

# Each lane runs its programs one option at a time, with scratch files of its own; the two lanes
# run side by side (the test's time is the longer lane's).

# prun and prterun: a job of /bin/true on the DVM of local nodes. prterun's options that describe
# its own DVM (and --host/--hostfile, which it gives to it too) start a private DVM each; its job
# options run with --dvm pid:<the test's DVM> added, prterun's path to prun without the start-up.
# --dvm and mpirun's --hnp choose a DVM themselves, and run without it.
PRTERUN_DVM_KEYS=" prefix noprefix launch-agent debug-daemons debug-daemons-file leave-session-attached report-uri report-pid tmpdir default-hostfile keepalive set-sid max-vm-size uniform-nodes hetero-nodes pmix-prefix system-server host H hostfile dvm hnp "
run_jobs() {
    R="$TEST_TMP/r.$1"
    grep "^$1$TAB" "$TEST_TMP/plan.jobs" | while IFS=$TAB read -r prog spelling key W; do
        program=$PRUN
        dvm=
        if [ "$prog" = prterun ]; then
            program=$PRTERUN
            case "$PRTERUN_DVM_KEYS" in *" $key "*) ;; *) dvm="--dvm pid:$PRUN_DVM_PID" ;; esac
        fi
        job="-n 1 /bin/true"
        case_count "$key" && job="/bin/true"
        case_no_job "$key" && job="" dvm=""
        # shellcheck disable=SC2086 # the words are meant to split
        timeout "$PERRUN" "$program" $dvm $W $job </dev/null >"$R.out" 2>"$R.err"
        classify "$prog" "$spelling" "$key" "$R" $?
    done
}

# prte: started daemonized with the option, then stopped.
run_prte() {
    R="$TEST_TMP/r.prte"
    grep "^prte$TAB" "$TEST_TMP/plan" | subst "" "" "" | while IFS=$TAB read -r prog spelling key W; do
        pidfile="$TEST_TMP/prte_opts/prte.pid"
        rm -f "$pidfile"
        extra="--daemonize --report-pid $pidfile"
        case "$key" in
        daemonize) extra="--report-pid $pidfile" ;;
        report-pid) extra="--daemonize" W="$spelling $pidfile" ;;
        esac
        case_no_job "$key" && extra=""
        # shellcheck disable=SC2086
        TMPDIR="$TEST_TMP/prte_opts" timeout "$PERRUN" "$PRTE" $W $extra </dev/null >"$R.out" 2>"$R.err"
        st=$?
        if [ -s "$pidfile" ]; then
            TMPDIR="$TEST_TMP/prte_opts" "$PTERM" --dvm "pid:$(cat "$pidfile")" >/dev/null 2>"$R.pterm" ||
                problem "prte $spelling: pterm could not stop the DVM it started: $(cat "$R.pterm")"
        fi
        classify "$prog" "$spelling" "$key" "$R" "$st"
    done
}

# pterm: each run stops a DVM of its own (a system server, for --system-server-*).
run_pterm() {
    R="$TEST_TMP/r.pterm"
    grep "^pterm$TAB" "$TEST_TMP/plan" | while IFS=$TAB read -r prog spelling key W; do
        pidfile="$TEST_TMP/pterm_opts/prte.pid"
        TMPDIR="$TEST_TMP/pterm_opts" "$PRTE" --daemonize --system-server --report-pid "$pidfile" \
            --report-uri "$TEST_TMP/pterm_opts/prte.uri" </dev/null >/dev/null 2>"$R.dvm" ||
            { problem "pterm $spelling: its DVM did not start: $(cat "$R.dvm")"; continue; }
        V_PID=$(cat "$pidfile")
        W=$(printf '%s\n' "$W" | subst "$V_PID" "$(nspace_of "$TEST_TMP/pterm_opts" "$V_PID")" "$TEST_TMP/pterm_opts/prte.uri")
        # shellcheck disable=SC2086
        TMPDIR="$TEST_TMP/pterm_opts" timeout "$PERRUN" "$PTERM" $W </dev/null >"$R.out" 2>"$R.err"
        st=$?
        # pterm exits 0 once the DVM has exited: a DVM still there is a pterm that lied.
        if alive "$V_PID"; then
            case_no_job "$key" || [ "$st" != 0 ] ||
                problem "pterm $spelling exited 0 but the DVM (pid $V_PID) still runs"
            TMPDIR="$TEST_TMP/pterm_opts" "$PTERM" --dvm "pid:$V_PID" >/dev/null 2>&1
        fi
        classify "$prog" "$spelling" "$key" "$R" "$st"
    done
}

run_info() {
    R="$TEST_TMP/r.info"
    grep "^prte_info$TAB" "$TEST_TMP/plan.jobs" | while IFS=$TAB read -r prog spelling key W; do
        # shellcheck disable=SC2086
        timeout "$PERRUN" "$PRTE_INFO" $W </dev/null >"$R.out" 2>"$R.err"
        classify "$prog" "$spelling" "$key" "$R" $?
    done
}

{ run_jobs prun; run_prte; run_info; } &
lane=$!
run_jobs prterun
run_pterm
wait "$lane"

# --- the verdict --------------------------------------------------------------------------------
grep -v '^#' "$DATA/pending_unknown.txt" | sed '/^$/d' | sort -u >"$TEST_TMP/pending"
sort -u "$TEST_TMP/unknown" -o "$TEST_TMP/unknown"
comm -23 "$TEST_TMP/unknown" "$TEST_TMP/pending" >"$TEST_TMP/unknown_new"
comm -13 "$TEST_TMP/unknown" "$TEST_TMP/pending" >"$TEST_TMP/pending_known"
while read -r line; do fail "$line: answered 'unknown option' (a name PRRTE or mpirun 4.1 documents)"; done <"$TEST_TMP/unknown_new"
while read -r line; do
    fail "$line: listed in pending_unknown.txt but now known: remove it from the list"
done <"$TEST_TMP/pending_known"
while read -r line; do fail "$line"; done <"$TEST_TMP/broken"
[ -s "$TEST_TMP/accepted" ] || fail "no option was accepted at all"
for p in prun prterun; do
    for o in --map-by --rank-by --bind-to --runtime-options; do
        grep -qx "$p $o" "$TEST_TMP/accepted" || grep -qx "$p $o" "$TEST_TMP/pending" || fail "$p $o was not accepted"
    done
done

total=$(wc -l <"$TEST_TMP/names")
counts=
for p in prun prterun prte pterm prte_info; do
    counts="$counts $p $(grep -c "^$p " "$TEST_TMP/unknown"),"
done
echo "option tables: $total names run; $(wc -l <"$TEST_TMP/accepted") accepted, $(wc -l <"$TEST_TMP/refused") refused with a reason; unknown option:${counts%,}"
sed 's/^/    refused: /' "$TEST_TMP/refused"
sed 's/^/    unknown (misread as another option): /' "$TEST_TMP/misread"
finish
