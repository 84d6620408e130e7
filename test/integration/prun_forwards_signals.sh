#!/bin/sh
# prun passes signals on to every process of its job, on every node, as PRRTE's prun does, on a DVM
# of 2 local nodes (one rank on each): by default TSTP, USR1, USR2, ABRT, ALRM and CONT; a rank's
# SIGUSR1 handler runs and the job goes on to exit 0. --forward-signals LIST replaces the set
# (USR2 alone reaches the ranks), `none` forwards nothing (SIGUSR1 then acts on prun as on any
# program: it dies of it, exit 138, and the DVM ends its job, whose ranks never saw it). TSTP stops
# the ranks (ps state T) and CONT continues them, prun itself running on. --verbose says
# "forwarding signal N to job X". A bad --forward-signals value is a one-line usage error (exit 2)
# naming it. prterun relays the same signals to its prun, so they reach its job too.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 2 2 --prtemca prte_set_slots 2

# A rank that says "NAME ready" once its handler for SIG is set, and on SIG says which rank and node
# got it and exits 0. Its `sleep` gets the signal too (the process group does), so the handler runs
# at once.
catcher() {
    echo "trap 'echo \"\$0: rank \$PMIX_RANK on \$PRTE_NODE_NAME got $1\"; exit 0' $1
        echo \"\$0 ready\"; while :; do sleep 0.1; done"
}

# wait_for_lines NAME TEXT COUNT: waits (at most 30 s) until NAME's stdout has COUNT lines with TEXT.
wait_for_lines() {
    t=0
    while [ "$(grep -c -- "$2" "$TEST_TMP/$1.out" 2>/dev/null)" -lt "$3" ] && [ $t -lt 300 ]; do
        sleep 0.1
        t=$((t + 1))
    done
}

# start_job NAME PRUN-ARGS...: prun in the background, its pid in $job_pid.
start_job() {
    name=$1
    shift
    # Created here, not only by the background redirection, which may come after the first look.
    : >"$TEST_TMP/$name.out"
    "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job_pid=$!
}

# end_job NAME: waits for the background prun, keeping its exit status for expect_status.
end_job() {
    wait "$job_pid"
    eval "status_$1=\$?"
}

# --- default set: SIGUSR1 reaches both ranks, on both nodes, and the job ends normally ---
start_job usr1 "$PRUN" -n 2 --map-by node sh -c "$(catcher USR1)" usr1
wait_for_lines usr1 "usr1 ready" 2
kill -USR1 "$job_pid"
end_job usr1
expect_status usr1 0
expect_line usr1 out "usr1: rank 0 on node1 got USR1"
expect_line usr1 out "usr1: rank 1 on node2 got USR1"

# --- --forward-signals USR2 (a number too), at --verbose: the forwarding line ---
start_job usr2 "$PRUN" --verbose -n 2 --map-by node --forward-signals 12 sh -c "$(catcher USR2)" usr2
wait_for_lines usr2 "usr2 ready" 2
kill -USR2 "$job_pid"
end_job usr2
expect_status usr2 0
expect_line usr2 out "usr2: rank 0 on node1 got USR2"
expect_line usr2 out "usr2: rank 1 on node2 got USR2"
grep -qE "prun: forwarding signal 12 to job [0-9]+$" "$TEST_TMP/usr2.err" &&
    pass "--verbose says 'forwarding signal 12 to job N'" || fail "no forwarding line: $(cat "$TEST_TMP/usr2.err")"

# --- none: SIGUSR1 acts on prun itself (its default: it dies of it); the DVM ends the job ---
start_job none "$PRUN" -n 2 --map-by node --forward-signals none sh -c "$(catcher USR1)" none
wait_for_lines none "none ready" 2
kill -USR1 "$job_pid"
end_job none
expect_status none 138
expect_no_line none out "got USR1"
t=0
while [ -n "$(test_pids -f '^sh -c .* none$')" ] && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
[ -z "$(test_pids -f '^sh -c .* none$')" ] && pass "the job of a prun killed by SIGUSR1 was ended" ||
    fail "ranks still running after their prun died: $(test_pids -f '^sh -c .* none$')"

# --- TSTP stops the ranks, CONT continues them; prun runs on throughout ---
# states: the ps states of this test's tstp ranks, one letter each, sorted ("S S", "T T"). A rank's
# own child between its fork and its exec of `sleep` has the rank's command line too; the signal
# can stop it there (ps then shows it in D or T): it is no rank, and is left out.
states() {
    ranks=$(test_pids -f '^sh -c .* tstp$')
    for p in $ranks; do
        case " $(echo $ranks) " in *" $(ps -o ppid= -p "$p" | tr -d ' ') "*) continue ;; esac
        ps -o stat= -p "$p" | cut -c1
    done | sort | xargs
}
# wait_for_states WANTED: at most 30 s.
wait_for_states() {
    t=0
    while [ "$(states)" != "$1" ] && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
}
start_job tstp "$PRUN" -n 2 --map-by node sh -c "$UNTIL_STOPPED" tstp
wait_for_lines tstp "tstp running" 2
kill -TSTP "$job_pid"
wait_for_states "T T"
[ "$(states)" = "T T" ] && pass "SIGTSTP stopped both ranks" || fail "after SIGTSTP the ranks' states are '$(states)'"
prun_state=$(ps -o stat= -p "$job_pid" | cut -c1)
[ "$prun_state" != T ] && pass "prun itself did not stop on SIGTSTP" || fail "prun stopped itself on SIGTSTP"
kill -CONT "$job_pid"
# Running again: two ranks, neither stopped (S or R, as each happens to be).
continued() { [ "$(states | wc -w)" = 2 ] && ! states | grep -q T; }
t=0
while ! continued && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
continued && pass "SIGCONT continued both ranks" || fail "after SIGCONT the ranks' states are '$(states)'"
stop_running tstp
end_job tstp
expect_status tstp 0

# --- bad values: one line naming what was wrong, exit 2 ---
run bad_name "$PRUN" -n 1 --forward-signals USR1,FOO true
expect_status bad_name 2
expect_one_line_errors bad_name
expect_line bad_name err "unknown signal 'FOO'"
run bad_term "$PRUN" -n 1 --forward-signals TERM true
expect_status bad_term 2
expect_line bad_term err "SIGTERM cannot be forwarded"
run bad_number "$PRUN" -n 1 --forward-signals 0 true
expect_status bad_number 2
expect_line bad_number err "unknown signal '0'"

stop_dvm

# --- prterun: a signal to prterun reaches its job through its prun ---
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"
start_job prterun "$PRTERUN" -n 1 sh -c "$(catcher USR1)" prterun
wait_for_lines prterun "prterun ready" 1
kill -USR1 "$job_pid"
end_job prterun
expect_status prterun 0
expect_line prterun out "prterun: rank 0 on"
expect_line prterun out "got USR1"

finish
