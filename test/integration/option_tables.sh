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

DATA="$PRTE_SRCDIR/test/integration/data/option_tables"
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"
PERRUN=10  # seconds any one run may take: a hang is a failure, not a stuck test

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

start_local_nodes_dvm 2 2 --report-uri "$TEST_TMP/dvm.uri"
PRUN_DVM_PID=$DVM_PID
nspace_of() { sed -n 's/^nspace=//p' "$1/prte.$(id -u)/dvm.$2"; }
PRUN_DVM_NS=$(nspace_of "$TEST_TMP" "$PRUN_DVM_PID")

# value PROGRAM KEY: the value words (substituted), "-" for none; fails the test if there is none.
value() {
    v=$(awk -F'\t' -v p="$1" -v k="$2" '!/^#/ && $2 == k && ($1 == p || $1 == "*") { if ($1 == p) own = $3; else any = $3 }
        END { if (own != "") print own; else if (any != "") print any; else print "?" }' "$DATA/values.tsv")
    printf '%s\n' "$v" | sed -e "s|@TMP@|$TEST_TMP|g" -e "s|@NODE@|node1|g" -e "s|@HOSTS@|$TEST_TMP/hosts1|g" \
        -e "s|@LOCAL@|$TEST_TMP/local|g" -e "s|@DVMPID@|$V_PID|g" -e "s|@DVMNS@|$V_NS|g" -e "s|@DVMURI@|$V_URI|g" \
        -e "s|@PRTED@|$PRTED|g" -e "s|@PREFIX@|$PRTE_BUILDDIR|g" -e "s|@PRTETMP@|$TEST_TMP/prte_opts|g"
}

# classify PROGRAM SPELLING: reads $TEST_TMP/r.{out,err,status}; appends to the result lists.
classify() {
    st=$(cat "$TEST_TMP/r.status")
    if grep -qiE "unknown option|not expected|unrecognized option" "$TEST_TMP/r.err"; then
        echo "$1 $2" >>"$TEST_TMP/unknown"
    elif [ "$st" = 0 ]; then
        echo "$1 $2" >>"$TEST_TMP/accepted"
    elif [ "$st" -lt 124 ] && grep -qE "^$1: error: " "$TEST_TMP/r.err"; then
        echo "$1 $2: $(grep -m1 -E "^$1: error: " "$TEST_TMP/r.err" | sed "s/^$1: error: //")" >>"$TEST_TMP/refused"
    else
        echo "$1 $2 (exit $st): $(head -c 300 "$TEST_TMP/r.err" | tr '\n' ' ')" >>"$TEST_TMP/broken"
    fi
}

# The loops run in subshells (pipes): what they find goes to a file, read at the end.
problem() { echo "$*" >>"$TEST_TMP/broken"; }

# The words of one option: the spelling and its value.
words() {
    W="$2"
    if [ "$3" -gt 0 ]; then
        v=$(value "$1" "$4")
        if [ "$v" = "?" ]; then
            problem "values.tsv has no value for $1's $2"
            return 1
        fi
        [ "$v" = "-" ] || W="$2 $v"
    fi
    return 0
}

# Options that are the whole command (no job), and those that set the process count themselves.
case_no_job() { case "$1" in help | h | version | V | app) return 0 ;; esac; return 1; }
case_count() { case "$1" in n | np | c | N | npernode | npersocket | ppr | pernode) return 0 ;; esac; return 1; }

: >"$TEST_TMP/unknown"; : >"$TEST_TMP/accepted"; : >"$TEST_TMP/refused"; : >"$TEST_TMP/broken"

# --- prun and prterun: a job of /bin/true on the DVM of local nodes --------------------------
V_PID=$PRUN_DVM_PID V_NS=$PRUN_DVM_NS V_URI="$TEST_TMP/dvm.uri"
grep -E '^(prun|prterun) ' "$TEST_TMP/names" | while read -r prog spelling arity key; do
    words "$prog" "$spelling" "$arity" "$key" || continue
    program=$PRUN
    [ "$prog" = prterun ] && program=$PRTERUN
    job="-n 1 /bin/true"
    case_count "$key" && job="/bin/true"
    case_no_job "$key" && job=""
    # shellcheck disable=SC2086 # the words are meant to split
    timeout "$PERRUN" "$program" $W $job </dev/null >"$TEST_TMP/r.out" 2>"$TEST_TMP/r.err"
    echo $? >"$TEST_TMP/r.status"
    classify "$prog" "$spelling"
done

# --- prte: started daemonized with the option, then stopped -----------------------------------
grep '^prte ' "$TEST_TMP/names" | while read -r prog spelling arity key; do
    V_PID= V_NS= V_URI=
    words "$prog" "$spelling" "$arity" "$key" || continue
    pidfile="$TEST_TMP/prte_opts/prte.pid"
    rm -f "$pidfile"
    extra="--daemonize --report-pid $pidfile"
    case "$key" in
    daemonize) extra="--report-pid $pidfile" ;;
    report-pid) extra="--daemonize" W="$spelling $pidfile" ;;
    esac
    case_no_job "$key" && extra=""
    # shellcheck disable=SC2086
    TMPDIR="$TEST_TMP/prte_opts" timeout "$PERRUN" "$PRTE" $W $extra </dev/null >"$TEST_TMP/r.out" 2>"$TEST_TMP/r.err"
    echo $? >"$TEST_TMP/r.status"
    if [ -s "$pidfile" ]; then
        TMPDIR="$TEST_TMP/prte_opts" "$PTERM" --dvm "pid:$(cat "$pidfile")" >/dev/null 2>&1 ||
            problem "prte $spelling: pterm could not stop the DVM it started"
    fi
    classify "$prog" "$spelling"
done

# --- pterm: each run stops a DVM of its own (a system server, for --system-server-*) ----------
grep '^pterm ' "$TEST_TMP/names" | while read -r prog spelling arity key; do
    pidfile="$TEST_TMP/pterm_opts/prte.pid"
    TMPDIR="$TEST_TMP/pterm_opts" "$PRTE" --daemonize --system-server --report-pid "$pidfile" \
        --report-uri "$TEST_TMP/pterm_opts/prte.uri" </dev/null >/dev/null 2>"$TEST_TMP/pterm_dvm.err" ||
        { problem "pterm $spelling: its DVM did not start: $(cat "$TEST_TMP/pterm_dvm.err")"; continue; }
    V_PID=$(cat "$pidfile") V_URI="$TEST_TMP/pterm_opts/prte.uri"
    V_NS=$(nspace_of "$TEST_TMP/pterm_opts" "$V_PID")
    words "$prog" "$spelling" "$arity" "$key" || continue
    # shellcheck disable=SC2086
    TMPDIR="$TEST_TMP/pterm_opts" timeout "$PERRUN" "$PTERM" $W </dev/null >"$TEST_TMP/r.out" 2>"$TEST_TMP/r.err"
    echo $? >"$TEST_TMP/r.status"
    # Options that choose the DVM must have stopped it; the rest stop the only DVM there is.
    if alive "$V_PID"; then
        case_no_job "$key" || [ "$(cat "$TEST_TMP/r.status")" != 0 ] ||
            problem "pterm $spelling exited 0 but the DVM (pid $V_PID) still runs"
        TMPDIR="$TEST_TMP/pterm_opts" "$PTERM" --dvm "pid:$V_PID" >/dev/null 2>&1
    fi
    classify "$prog" "$spelling"
done

# --- prte_info --------------------------------------------------------------------------------
grep '^prte_info ' "$TEST_TMP/names" | while read -r prog spelling arity key; do
    words "$prog" "$spelling" "$arity" "$key" || continue
    # shellcheck disable=SC2086
    timeout "$PERRUN" "$PRTE_INFO" $W </dev/null >"$TEST_TMP/r.out" 2>"$TEST_TMP/r.err"
    echo $? >"$TEST_TMP/r.status"
    classify "$prog" "$spelling"
done

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
grep -q '^prun --map-by$' "$TEST_TMP/accepted" || fail "prun --map-by was not accepted"

total=$(wc -l <"$TEST_TMP/names")
counts=
for p in prun prterun prte pterm prte_info; do
    counts="$counts $p $(grep -c "^$p " "$TEST_TMP/unknown"),"
done
echo "option tables: $total names run; $(wc -l <"$TEST_TMP/accepted") accepted, $(wc -l <"$TEST_TMP/refused") refused with a reason; unknown option:${counts%,}"
sed 's/^/    refused: /' "$TEST_TMP/refused"
finish
