#!/bin/sh
# Daemon loss outside elastic mode, on the local-node test-bed with rml_radix 2 (8 nodes: daemon 1
# is an inner node of the tree, over 3 and 4, which are over 7 and 8). PRRTE's outcome: the master
# reports which daemon and node were lost, the job running there ends with that message and a
# failure status, and the DVM shuts down - every daemon exits and nothing it launched survives.
# Losing the master makes every daemon kill its processes and exit. A daemon that cannot start
# ends the DVM's start-up with its node named and the agent's own message.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

# lose RANK: kill -9 daemon RANK while an 8-rank job runs on every node; check the outcome.
lose() {
    rank=$1
    start_local_nodes_dvm 8 2
    "$PRUN" -n 8 --map-by node sleep 60 >"$TEST_TMP/job$rank.out" 2>"$TEST_TMP/job$rank.err" &
    prun_pid=$!
    wait_for_sleeps 8 || fail "the job did not start on all 8 nodes"
    sleeps=$(running_sleeps)
    daemons=$(dvm_daemons)
    kill -9 "$(daemon_pid "$rank")"
    wait "$prun_pid"
    status=$?
    [ $status -ne 0 ] && pass "prun fails when daemon $rank is lost ($status)" || fail "prun exited 0 after daemon $rank was lost"
    if grep -q "daemon $rank on node node$rank" "$TEST_TMP/job$rank.err"; then pass "prun names daemon $rank and node$rank"; else
        fail "prun's message does not name daemon $rank on node$rank:"; sed 's/^/    /' "$TEST_TMP/job$rank.err"; fi
    if grep -q "daemon $rank on node node$rank was lost" "$TEST_TMP/prte.err"; then pass "prte reports the loss"; else
        fail "prte does not report the loss:"; sed 's/^/    /' "$TEST_TMP/prte.err"; fi
    if wait_gone "$DVM_PID"; then pass "the DVM shut down"; else fail "the DVM is still running"; fi
    if wait_gone $daemons; then pass "every daemon exited"; else fail "daemons left: $(dvm_daemons)"; fi
    if wait_gone $sleeps; then pass "no application process left"; else fail "application processes left"; fi
    DVM_PID=
}

lose 8  # a leaf
lose 1  # an inner daemon: its subtree is reached through the repaired tree

# A fence in flight when a daemon hosting some of its processes is lost: ranks 0-2 fence while
# rank 3 (node4) never does, so the master holds their shares waiting for daemon 4's. Losing
# daemon 4 fails the collective everywhere at once, rather than leaving it waiting.
start_local_nodes_dvm 4 2 --prtemca grpcomm_base_verbose 5
FENCETIME="$PRTE_BUILDDIR/test/clients/fencetime"
"$PRUN" -n 4 --map-by node sh -c "if [ \$PMIX_RANK = 3 ]; then exec sleep 60; else exec '$FENCETIME' 3; fi" \
    >"$TEST_TMP/fence.out" 2>"$TEST_TMP/fence.err" &
prun_pid=$!
wait_for_line "$TEST_TMP/prte.err" '^\[vm:.*grpcomm: allgather .*share(s) from daemon' ||
    fail "the fence's shares never reached the master"
daemons=$(dvm_daemons)
kill -9 "$(daemon_pid 4)"
wait "$prun_pid"
[ $? -ne 0 ] && pass "the job fails when daemon 4 is lost in a fence" || fail "the fence job exited 0"
if wait_for_line "$TEST_TMP/prte.err" '^\[vm:.*allgather .*failed: daemon 4, which hosts some of the processes, has left'; then
    pass "the master fails the fence in flight, naming daemon 4"
else
    fail "the master did not fail the fence:"; grep allgather "$TEST_TMP/prte.err" | sed 's/^/    /'
fi
if wait_gone "$DVM_PID" && wait_gone $daemons; then pass "the DVM shut down"; else fail "the DVM or its daemons still run"; fi
DVM_PID=

# The master lost: every daemon kills its processes and exits.
start_local_nodes_dvm 4 2
"$PRUN" -n 4 --map-by node sleep 60 >/dev/null 2>&1 &
wait_for_sleeps 4 || fail "the job did not start on all 4 nodes"
sleeps=$(running_sleeps)
daemons=$(dvm_daemons)
kill -9 "$DVM_PID"
wait "$DVM_PID" 2>/dev/null
if wait_gone $daemons; then pass "daemons exit when the master is lost"; else fail "daemons outlived the master"; fi
if wait_gone $sleeps; then pass "their processes were killed"; else fail "application processes outlived the master"; fi
wait
DVM_PID=

# A daemon that cannot start: its node, and what the agent said.
cat >"$TEST_TMP/agent" <<AGENT
#!/bin/sh
if [ "\$1" = bad ]; then echo "ssh: connect to host bad port 22: Connection refused" >&2; exit 255; fi
exec "$LOCAL_AGENT" "\$@"
AGENT
chmod +x "$TEST_TMP/agent"
printf 'node1\nbad\nnode3\n' >"$TEST_TMP/badhosts"
run badnode "$PRTE" --hostfile "$TEST_TMP/badhosts" --prtemca plm_ssh_agent "$TEST_TMP/agent" \
    --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo
expect_status badnode 1
expect_line badnode err "daemon 2 on node bad failed to start"
expect_line badnode err "Connection refused"
left=$(pgrep -f "prted.*--dvm-uri" | while read -r p; do tr '\0' ' ' <"/proc/$p/environ" 2>/dev/null | grep -q "$TEST_TMP" && echo "$p"; done)
[ -z "$left" ] && pass "nothing left after a failed start" || fail "daemons left after a failed start: $left"
finish
