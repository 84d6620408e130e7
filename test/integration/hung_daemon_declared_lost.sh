#!/bin/sh
# Issue 27 item 8: a hung daemon (SIGSTOP: its connections stay up, so nothing but the heartbeat
# can notice) in an elastic DVM, prte_daemon_heartbeat_timeout 4, rml_radix 2 over 5 nodes
# (0 over 1 and 2, 1 over 3 and 4, 2 over 5): daemon 3 is a leaf under daemon 1, which reports it
# to the master; daemon 2 is the master's own child, and inner: its child 5 is re-parented to the
# master and must not be taken for hung itself. While it is stopped, jobs on other nodes run at
# once, without waiting for the verdict; after the timeout the master says so in one line naming
# the daemon, its node and how long it was silent, the job spanning it fails naming it (its other
# processes ended), and the DVM carries on. On SIGCONT the daemon and its processes end. Fixed
# mode and the defaults: hung_daemon_defaults.sh.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

# A stopped daemon left behind by a failed check would ignore pterm: it is continued first.
stopped=
trap 'kill -CONT $stopped 2>/dev/null; stop_dvm; rm -rf "$TEST_TMP"' EXIT

start_local_nodes_dvm 5 2 --prtemca prte_elastic_mode 1 --prtemca prte_daemon_heartbeat_timeout 4 \
    --prtemca rml_base_verbose 5
LOST_LINE='sent nothing for [0-9.]* s.*longer than prte_daemon_heartbeat_timeout (4 s): it is declared lost; the DVM carries on without node'

# hang RANK PARENT NODES LINES [CHILD]: stops daemon RANK (child of PARENT) while a job spans the
# NODES nodes left and a bystander runs on node4; LINES loss lines are then expected in all. With
# CHILD, daemon RANK's child: a job started there during the hang.
hang() {
    rank=$1
    parent=$2
    nodes=$3
    # Bounded, so that a DVM that never decides fails the test instead of hanging it (124).
    timeout -k 5 60 "$PRUN" -n "$nodes" --map-by node sleep 600 >"$TEST_TMP/span$rank.out" 2>"$TEST_TMP/span$rank.err" &
    span=$!
    wait_for_sleeps "$nodes" || fail "the spanning job did not start on every node"
    theirs=$(pgrep -P "$(daemon_pid "$rank")" -x sleep)
    [ -n "$theirs" ] || fail "no process of the spanning job under daemon $rank"
    timeout -k 5 120 "$PRUN" -n 1 --host node4 sh -c "$UNTIL_STOPPED" bystander$rank >"$TEST_TMP/bystander$rank.out" 2>&1 &
    bystander=$!
    wait_for_line "$TEST_TMP/bystander$rank.out" "bystander$rank running" || fail "the bystander did not start"
    stopped=$(daemon_pid "$rank")
    kill -STOP "$stopped"
    # A job on a node reached through the hung daemon (its child) waits for the verdict, then runs.
    if [ -n "$5" ]; then
        timeout -k 5 60 "$PRUN" -n 1 --host "node$5" sh -c 'echo $PRTE_MCA_prte_node_name' \
            >"$TEST_TMP/below$rank.out" 2>"$TEST_TMP/below$rank.err" &
        below=$!
    fi

    # Jobs elsewhere are not held up by it: one runs to its end before the verdict comes.
    run meanwhile$rank timeout -k 5 30 "$PRUN" -n 2 --host node1,node4 --map-by node:OVERSUBSCRIBE hostname
    declared=$(grep -c "daemon $rank on node node$rank $LOST_LINE" "$TEST_TMP/prte.err")
    if [ "$(status_of meanwhile$rank)" -eq 0 ] && [ "$declared" -eq 0 ]; then
        pass "a job elsewhere ran while daemon $rank hung, before it was declared lost"
    else
        fail "the job elsewhere (status $(status_of meanwhile$rank)) did not end before daemon $rank was declared lost"
        sed 's/^/    /' "$TEST_TMP/meanwhile$rank.err"
    fi

    wait "$span"
    status=$?
    [ $status -ne 0 ] && [ $status -ne 124 ] && pass "the job spanning node$rank failed ($status)" ||
        fail "the job spanning node$rank exited $status (124: it hung)"
    grep -q "daemon $rank on node node$rank sent nothing" "$TEST_TMP/span$rank.err" &&
        pass "its message names daemon $rank on node$rank" || fail "prun said: $(cat "$TEST_TMP/span$rank.err")"
    n=$(grep -c "$LOST_LINE" "$TEST_TMP/prte.err")
    line=$(grep "$LOST_LINE" "$TEST_TMP/prte.err" | tail -1)
    [ "$n" -eq "$4" ] && echo "$line" | grep -q "daemon $rank on node node$rank sent nothing" &&
        pass "one line declares daemon $rank on node$rank lost: $line" ||
        fail "$n loss line(s), expected $4: $(grep "$LOST_LINE" "$TEST_TMP/prte.err")"
    wait_for_line "$TEST_TMP/prte.err" "rml: daemon $parent: missed heartbeats: nothing from daemon $rank for" &&
        pass "daemon $parent's missed heartbeats from daemon $rank are in rml's verbose stream" ||
        fail "no missed-heartbeat line from daemon $parent"
    alive "$bystander" && pass "the bystander on node4 still runs" || fail "the bystander on node4 ended"
    alive "$DVM_PID" && pass "the DVM carries on" || fail "the DVM ended"
    if [ -n "$5" ]; then
        wait "$below"
        status=$?
        [ $status -eq 0 ] && [ "$(cat "$TEST_TMP/below$rank.out")" = "node$5" ] &&
            pass "the job on node$5, below daemon $rank, ran once the tree was repaired" ||
            fail "the job on node$5 exited $status: $(cat "$TEST_TMP/below$rank.out" "$TEST_TMP/below$rank.err")"
    fi

    # Woken, the daemon learns it was declared lost and ends with its processes.
    kill -CONT "$stopped"
    if wait_gone "$stopped"; then pass "daemon $rank, woken, exited"; else fail "daemon $rank still runs after SIGCONT"; fi
    if wait_gone $theirs; then pass "its processes are gone"; else fail "its processes outlived it: $theirs"; fi
    grep -q "daemon $rank: the DVM declared this daemon lost after" "$TEST_TMP/prte.err" &&
        pass "daemon $rank says why it ends" || fail "daemon $rank did not say it was declared lost"
    stopped=
    stop_running bystander$rank
    wait "$bystander"
    [ $? -eq 0 ] && pass "the bystander was unaffected" || fail "the bystander failed"
}

hang 3 1 5 1  # a leaf under daemon 1: its parent reports it
hang 2 0 4 2 5  # the master's own child, over daemon 5

# Later jobs run on the nodes left, node5 included: re-parented, it beats to the master, and this
# job outlasts a whole timeout (and the interval of the master's check) from its start.
run after timeout -k 5 60 "$PRUN" -n 3 --map-by node sh -c 'sleep 6; echo $PRTE_MCA_prte_node_name'
expect_status after 0
[ "$(sort "$TEST_TMP/after.out" | tr '\n' ' ')" = "node1 node4 node5 " ] &&
    pass "later jobs run on node1, node4 and node5, no more lost" || fail "later job ran on: $(cat "$TEST_TMP/after.out")"
[ "$(grep -c "$LOST_LINE" "$TEST_TMP/prte.err")" -eq 2 ] && pass "no other daemon was declared lost" ||
    fail "loss lines: $(grep "$LOST_LINE" "$TEST_TMP/prte.err")"
left=$(running_sleeps)
[ -z "$left" ] && pass "the spanning jobs' processes on every node are gone" || fail "processes left: $left"
daemons=$(dvm_daemons)
"$PTERM" >/dev/null 2>&1
if wait_gone "$DVM_PID" && wait_gone $daemons; then pass "pterm: the DVM and its daemons are gone"; else
    fail "left running after pterm: $DVM_PID $daemons"; fi
DVM_PID=
finish
