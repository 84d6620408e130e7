#!/bin/sh
# Issue 13 item 3: the asynchronous PMIx group (PMIx_Group_invite / PMIx_Group_join, RFC 0033)
# across 3 local nodes, one rank on each (node1 the leader's). PMIx 4.2.2 builds it from events
# only, which the DVM delivers across nodes (a decline too); the DVM itself follows each invitation, so that an
# invitee that ends before it answers is told to the leader (PMIX_GROUP_INVITE_FAILED) and a leader
# that ends before the group is complete to the invitees (PMIX_GROUP_LEADER_FAILED), once each.
# Without that, the waits below end with "invite no <event>".
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5

# heard NAME RANK EVENT COUNT [MEMBER-RANK]: rank RANK heard EVENT COUNT times (naming MEMBER-RANK).
heard() {
    pattern="^invite event rank $2: $3 member "
    if [ -n "${5:-}" ]; then pattern="$pattern[^ ]*:$5 "; fi
    n=$(grep -c "$pattern" "$TEST_TMP/$1.out")
    what="$3${5:+ naming rank $5}"
    if [ "$n" = "$4" ]; then pass "$1: rank $2 heard $what $4 time(s)"; else
        fail "$1: rank $2 heard $what $n time(s), not $4"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; fi
}

# nothing_followed NAME: once the job is gone, no daemon follows an invitation of it.
nothing_followed() {
    ns=$(sed -n 's/.*rank [0-9]* of job \([^ ]*\) on node .*/\1/p' "$TEST_TMP/$1.err" | head -1)
    [ -n "$ns" ] || ns=$(grep -o "invitation from [^ ]*" "$TEST_TMP/prte.err" | tail -1 | sed 's/invitation from \(.*\):[0-9]*$/\1/')
    wait_for_lines "$TEST_TMP/prte.err" "job $ns deregistered: .* invitation(s) dropped" 4 100
    n=$(grep -c "job $ns deregistered: .* invitation(s) dropped, 0 still followed$" "$TEST_TMP/prte.err")
    if [ -n "$ns" ] && [ "$n" = 4 ]; then pass "$1: no daemon follows an invitation of the job afterwards"; else
        fail "$1: after job '$ns': $(grep "job $ns deregistered: .* invitation" "$TEST_TMP/prte.err")"; fi
}

# kill_late NAME: kills the rank that says "invite late rank R waits, pid P" once WAITS lines
# match $waits in its output, and waits for prun, which must end with the kill's status.
kill_late() {
    wait_for_lines "$TEST_TMP/$1.out" '^invite late rank' 1 300 "$job"
    wait_for_lines "$TEST_TMP/$1.out" "$waits" "$nwaits" 300 "$job"
    victim=$(sed -n 's/^invite late rank [0-9]* waits, pid \([0-9]*\)$/\1/p' "$TEST_TMP/$1.out")
    [ -n "$victim" ] && kill -9 "$victim"
    wait "$job"
    status=$?
    if [ $status = 137 ]; then pass "$1: the job ended with the kill's status, no hang"; else
        fail "$1: prun exited $status (124: it hung)"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; fi
}

# ---- every invitee accepts: the group is complete everywhere ----
run accept timeout 60 "$PRUN" -n 3 --map-by node "$CLIENTS/invite" --id accept
expect_status accept 0
expect_line accept out "invite done rank 0: SUCCESS"
for r in 0 1 2; do heard accept $r GROUP-CONSTRUCT-COMPLETE 1; done
[ "$(grep -c 'FAILED\|^invite no' "$TEST_TMP/accept.out")" = 0 ] && pass "accept: no failure event, no wait ran out" ||
    fail "accept: $(grep 'FAILED\|^invite no' "$TEST_TMP/accept.out")"
nothing_followed accept

# ---- rank 2 (node3) is killed before it answers: the leader hears it and aborts ----
timeout 60 "$PRUN" --enable-recovery -n 3 --map-by node "$CLIENTS/invite" --id invitee --late-invitee 2 \
    >"$TEST_TMP/invitee.out" 2>"$TEST_TMP/invitee.err" &
job=$!
waits='GROUP-INVITED'
nwaits=3
kill_late invitee
heard invitee 0 GROUP-INVITE-FAILED 1 2
heard invitee 1 GROUP-INVITE-FAILED 0
heard invitee 1 GROUP-CONSTRUCT-ABORT 1
grep -q "^\[node3\].*group invitee: invitee .*:2 ended before it answered the invitation; telling .*:0 (GROUP-INVITE-FAILED)" \
    "$TEST_TMP/prte.err" && pass "invitee: node3's daemon, where rank 2 ran, told the leader" ||
    fail "invitee: node3 did not log telling the leader"
nothing_followed invitee

# ---- rank 2 (node3) declines: the leader hears PMIX_GROUP_INVITE_DECLINED from it, once, and
# ---- aborts (PMIx 4.2.2's invite completes only once every invitee accepted) ----
run declined timeout 60 "$PRUN" -n 3 --map-by node "$CLIENTS/invite" --id declined --decliner 2
expect_status declined 0
expect_line declined out "invite rank 2 declines"
heard declined 0 GROUP-INVITE-DECLINED 1 2
for r in 1 2; do heard declined $r GROUP-INVITE-DECLINED 0; done
for r in 1 2; do heard declined $r GROUP-CONSTRUCT-ABORT 1; done
nothing_followed declined

# ---- the leader (node1) is killed with the group under construction (rank 2 has not answered):
# ---- ranks 1 and 2 hear it, and rank 1 takes over with a new invitation to the same group ----
timeout 60 "$PRUN" --enable-recovery -n 3 --map-by node "$CLIENTS/invite" --id leader --late-leader \
    >"$TEST_TMP/leader.out" 2>"$TEST_TMP/leader.err" &
job=$!
waits='GROUP-INVITED\|does not answer'
nwaits=4
kill_late leader
for r in 1 2; do heard leader $r GROUP-LEADER-FAILED 1 0; done
expect_line leader out "invite done rank 1: SUCCESS"
for r in 1 2; do heard leader $r GROUP-CONSTRUCT-COMPLETE 1; done
grep -q "^\[node1\].*group leader: leader .*:0 ended before the group was complete; telling .*:1,.*:2 (GROUP-LEADER-FAILED)" \
    "$TEST_TMP/prte.err" && pass "leader: node1's daemon, where the leader ran, told the invitees" ||
    fail "leader: node1 did not log telling the invitees"
nothing_followed leader
finish
