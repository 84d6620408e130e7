#!/bin/sh
# A DVM of many daemons on the local-node test-bed: daemons launched through plm/ssh's agent,
# wired over the radix tree (rml_radix 2, so the tree has several levels), jobs on every node with
# cross-node fences and data exchange, output and exit status from remote ranks, strangers on a
# daemon's port rejected, and 100 jobs in a row leaving nothing behind.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 4 2 --prtemca rml_base_verbose 5
ndaemons=$(dvm_daemons | wc -l)
[ "$ndaemons" = 4 ] && pass "4 daemons running" || fail "expected 4 daemons, found $ndaemons"

# Ranks spread by node land on node1..node4, each named by its own daemon.
run spread "$PRUN" -n 8 --map-by node "$CLIENTS/jobinfo"
expect_status spread 0
for i in 1 2 3 4; do
    c=$(grep -c "host node$i " "$TEST_TMP/spread.out")
    [ "$c" = 2 ] && pass "2 ranks on node$i" || fail "$c ranks on node$i, expected 2: $(cat "$TEST_TMP/spread.out")"
done

# Put/commit/fence with data collection/get between ranks on different nodes.
run putget "$PRUN" -n 8 --map-by node "$CLIENTS/putget"
expect_status putget 0
expect_line putget out "putget ok size 8"
# Without data collection each Get of another node's value is a direct modex to that rank's daemon.
run direct "$PRUN" -n 8 --map-by node "$CLIENTS/putget" --direct
expect_status direct 0
expect_line direct out "putget ok size 8"

# PMIx_Spawn from a process on a daemon's node (MPI_Comm_spawn's path): its daemon relays the
# request to the master, answers it, and tells it when the child job ends.
run remote_spawn "$PRUN" -n 1 --host node3 "$CLIENTS/spawn"
expect_status remote_spawn 0
expect_line remote_spawn out "spawn ok child"
# A child that cannot run (a directory) is reported to the spawner through the relay.
run remote_bad_spawn "$PRUN" -n 1 --host node3 "$CLIENTS/spawn" /
expect_status remote_bad_spawn 1
expect_line remote_bad_spawn err "spawn: error: the child job"

# Output of remote ranks reaches prun, tagged with job and rank.
run tagged "$PRUN" -n 4 --map-by node --output tag sh -c 'echo "hello from $PMIX_RANK"'
expect_status tagged 0
for r in 0 1 2 3; do expect_line tagged out ",$r]<stdout>: hello from $r"; done

# A remote rank's exit status is the job's, named with its node.
run remote_exit "$PRUN" -n 4 --map-by node sh -c '[ "$PMIX_RANK" = 2 ] && exit 7; sleep 30'
expect_status remote_exit 7
expect_line remote_exit err "rank 2"
expect_line remote_exit err "node3"

# prun's stdin goes to rank 0, which runs on another node.
printf 'line one\nline two\n' >"$TEST_TMP/input"
run remote_stdin sh -c "\"$PRUN\" -n 2 --map-by node cat <\"$TEST_TMP/input\""
expect_status remote_stdin 0
expect_line remote_stdin out "line two"

# Strangers on a daemon's port: junk, and a daemon that does not know the secret.
port=$(daemon_port 2)
if [ -n "$port" ]; then
    printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 bash -c "cat >/dev/tcp/127.0.0.1/$port" 2>/dev/null
    printf '%0100d' 0 | timeout 5 bash -c "cat >/dev/tcp/127.0.0.1/$port" 2>/dev/null
    echo 0000000000000000000000000000000000000000000000000000000000000000 |
        timeout 10 "$PRTED" --dvm-uri "tcp://127.0.0.1:$port" --rank 9 --dvm-nspace intruder \
            --prtemca mca_base_component_path "$PRTE_MCA_mca_base_component_path" >"$TEST_TMP/intruder.out" 2>&1
    intruder_status=$?
    [ $intruder_status -ne 0 ] && pass "a daemon with the wrong secret is turned away" ||
        fail "the intruder daemon exited 0"
    if wait_for_line "$TEST_TMP/prte.err" "does not know the DVM's secret"; then pass "wrong secret logged"; else
        fail "no log line for the wrong secret"; sed 's/^/    /' "$TEST_TMP/prte.err"; fi
    if wait_for_line "$TEST_TMP/prte.err" "rejected 127.0.0.1:[0-9]*: it left without completing the handshake"; then
        pass "a short junk message logged"; else fail "no log line for a short junk message"; fi
    if wait_for_line "$TEST_TMP/prte.err" "rejected 127.0.0.1:[0-9]*: not a prte handshake"; then
        pass "a long junk message logged"; else fail "no log line for a long junk message (port $port)"
        sed 's/^/    prte.err: /' "$TEST_TMP/prte.err"; sed 's/^/    intruder: /' "$TEST_TMP/intruder.out"; fi
else
    fail "cannot find daemon 2's port"
fi
run after_strangers "$PRUN" -n 4 --map-by node "$CLIENTS/putget"
expect_status after_strangers 0
stop_dvm

# Output flow control across nodes: a remote process writing 64 MB while prun is stopped is held
# back on its node (the master stops acknowledging once prun is behind), the master's memory stays
# small, and every byte arrives once prun goes on.
start_local_nodes_dvm 4 2 --prtemca pmix_server_verbose 5
bytes=64000000
"$PRUN" -n 1 --host node3 head -c $bytes /dev/zero >"$TEST_TMP/flow.out" 2>"$TEST_TMP/flow.err" &
prun_pid=$!
wait_for_line "$TEST_TMP/prte.err" "spawns job" || fail "the flow job did not start"
kill -STOP "$prun_pid"
if wait_for_line "$TEST_TMP/prte.err" "^\[node3\].*not yet taken by the master, pausing"; then
    pass "daemon 3 pauses the output the master has not taken"
else
    fail "daemon 3 never paused its output"
fi
rss_kb=$(awk '/^VmRSS/ {print $2}' /proc/"$DVM_PID"/status)
[ "$rss_kb" -lt 60000 ] && pass "prte stays small while prun is stopped (${rss_kb} kB)" ||
    fail "prte grew to ${rss_kb} kB while prun was stopped"
kill -CONT "$prun_pid"
wait "$prun_pid"
flow_status=$?
got=$(wc -c <"$TEST_TMP/flow.out")
[ $flow_status = 0 ] && [ "$got" = $bytes ] && pass "all $bytes bytes arrived once prun went on" ||
    fail "prun exited $flow_status with $got of $bytes bytes: $(cat "$TEST_TMP/flow.err")"
# A prun killed while behind: the DVM still ends the job and shuts down (the ended process's
# pipes are read to the end even while its job's output is paused).
"$PRUN" -n 1 --host node3 yes >/dev/null 2>&1 &
prun_pid=$!
wait_for_line "$TEST_TMP/prte.err" "spawns job prte-[^ ]*@2" || fail "the second flow job did not start"
kill -STOP "$prun_pid"
pauses=$(grep -c "^\[node3\].*pausing" "$TEST_TMP/prte.err")
t=0
while [ "$(grep -c "^\[node3\].*pausing" "$TEST_TMP/prte.err")" -le "$pauses" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
kill -9 "$prun_pid"
wait "$prun_pid" 2>/dev/null
daemons=$(dvm_daemons)
stop_dvm
if wait_gone $daemons; then pass "pterm ends a DVM whose job's reader was killed while behind"; else fail "daemons left"; fi
left=$(test_pids -x yes)
[ -z "$left" ] && pass "no yes left" || fail "yes left running: $left"

# Eight nodes, radix 2: a three-level tree; a job on every node, then 100 jobs in a row.
start_local_nodes_dvm 8 2 --prtemca grpcomm_base_verbose 5
run eight "$PRUN" -n 16 --map-by node "$CLIENTS/putget"
expect_status eight 0
expect_line eight out "putget ok size 16"
# Once a job is released, no daemon keeps anything of its collectives (a DVM lives for months).
wait_for_line "$TEST_TMP/prte.err" "^\[node8\].*released; still held" || fail "daemon 8 never released the job"
released=$(grep -c "released; still held" "$TEST_TMP/prte.err")
kept=$(grep "released; still held" "$TEST_TMP/prte.err" | grep -vc "held: 0 collective counter(s), 0 collective(s), 0 broadcast id(s)")
[ "$released" -ge 9 ] && [ "$kept" = 0 ] && pass "the job's collective state is gone on all $released daemons" ||
    fail "collective state kept after the job ($released released, $kept keeping some): $(grep 'released; still' "$TEST_TMP/prte.err")"
fds_before=$(ls /proc/"$DVM_PID"/fd | wc -l)
daemons_before=$(dvm_daemons | tr '\n' ' ')
i=0
bad=0
while [ $i -lt 100 ]; do
    "$PRUN" -n 8 --map-by node true >/dev/null 2>&1 || bad=$((bad + 1))
    i=$((i + 1))
done
[ $bad = 0 ] && pass "100 jobs over 8 nodes" || fail "$bad of 100 jobs failed"
fds_after=$(ls /proc/"$DVM_PID"/fd | wc -l)
[ "$fds_after" -le $((fds_before + 2)) ] && pass "no fd leak in prte ($fds_before -> $fds_after)" ||
    fail "prte fds grew from $fds_before to $fds_after"
[ "$(dvm_daemons | tr '\n' ' ')" = "$daemons_before" ] && pass "the same 8 daemons still serve" || fail "daemons changed"
strays=$(for d in $(dvm_daemons); do pgrep -P "$d"; done)
[ -z "$strays" ] && pass "no process left under the daemons" || fail "processes left under daemons: $strays"
daemons=$(dvm_daemons)
stop_dvm
if wait_gone $daemons; then pass "every daemon exited after pterm"; else fail "daemons left after pterm"; fi
finish
