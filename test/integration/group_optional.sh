#!/bin/sh
# Issue 13, RFC 0033's PMIX_GROUP_OPTIONAL: a member killed before it joins a construct that says
# participation is optional is left out instead of failing it. Every survivor's construct succeeds,
# on every node, and each survivor hears PMIX_GROUP_INVITE_FAILED naming the dead rank once, then
# PMIX_GROUP_MEMBERSHIP_UPDATE listing the members that remain; the group's destruct, over those,
# succeeds; no daemon keeps collective state; also when the member died before any member called,
# or left normally alone on its node.
# (Without the attribute: group_member_ended.)
# 3 local nodes (rml_radix 2), a job that carries on after the failure (--enable-recovery).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

# PMIx's own log of each group request its server receives ("recvd grpconstruct cmd").
PMIX_MCA_pmix_server_connect_verbose=2
export PMIX_MCA_pmix_server_connect_verbose
start_local_nodes_dvm 3 2 --prtemca pmix_server_verbose 5 --prtemca grpcomm_base_verbose 5

# run_case NAME LATE PRUN-ARGS...: kill_late_when with the group client (group NAME, members
# listed by rank, rank LATE late, --optional).
run_case() {
    case_name=$1
    case_late=$2
    shift 2
    kill_late_when "$case_name" "$@" "$CLIENTS/group" --id "$case_name" --by-rank --optional --late-rank "$case_late"
}

# survived NAME COUNT LATE: each of the COUNT survivors constructed and destructed the group with
# one context id, and heard the new membership (every rank but LATE) once.
survived() {
    ok=$(grep -c "^group ok rank [0-9]* iter 0 ctxid [0-9]*$" "$TEST_TMP/$1.out")
    ids=$(sed -n "s/^group ok rank [0-9]* iter 0 ctxid \([0-9]*\)$/\1/p" "$TEST_TMP/$1.out" | sort -u | wc -l)
    if [ "$ok" = "$2" ] && [ "$ids" = 1 ]; then
        pass "$1: all $2 survivors constructed (one context id) and destructed the group"
    else
        fail "$1: $ok of $2 survivors constructed and destructed it ($ids context id(s))"
        sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"
    fi
    group_event_once "$1" invite "$2" "$3"
    ns=$(sed -n "s/.*group $1 construct over \([^:]*\):.*/\1/p" "$TEST_TMP/prte.err" | head -1)
    kept=""
    r=0
    while [ $r -le "$2" ]; do
        [ $r != "$3" ] && kept="$kept${kept:+,}$ns:$r"
        r=$((r + 1))
    done
    heard=$(grep -c "^group membership rank [0-9]*: group $1 members $kept$" "$TEST_TMP/$1.out")
    total=$(grep -c "^group membership rank" "$TEST_TMP/$1.out")
    if [ -n "$ns" ] && [ "$heard" = "$2" ] && [ "$total" = "$2" ]; then
        pass "$1: each survivor heard PMIX_GROUP_MEMBERSHIP_UPDATE once, listing $kept"
    else
        fail "$1: $heard of $2 survivors heard the membership $kept ($total events in all)"
        sed 's/^/    /' "$TEST_TMP/$1.out"
    fi
}

# ---- the dead rank 2 is alone on node3, which never joins the collective ----
waits="^\[node1\].*allgather.*group.alone.construct.*from.this.daemon ^\[node2\].*allgather.*group.alone.construct.*from.this.daemon"
run_case alone 2 -n 3 --map-by node
survived alone 2 2
grep -q "allgather .*group alone construct#1: complete, .*, 1 ended or lost process(es) left out" "$TEST_TMP/prte.err" &&
    pass "alone: the master completed the collective without node3, leaving rank 2 out" ||
    fail "alone: no collective completed without rank 2"
nothing_held alone

# ---- the dead rank 3 shares node1 with rank 0, which called: PMIx 4.2.2 would keep rank 0's
# construct for ever; node1 hands it to the DVM itself ----
# --map-by node: node1 has ranks 0 and 3, node2 rank 1, node3 rank 2.
waits="^\[node1\].*recvd.grpconstruct.cmd ^\[node2\].*allgather.*group.beside.construct.*from.this.daemon ^\[node3\].*allgather.*group.beside.construct.*from.this.daemon"
run_case beside 3 -n 4 --map-by node
survived beside 3 3
grep -q "^\[node1\].*group beside construct: member .*:3 ended before it took part; the 1 caller(s) on this node go on without it (PMIX_GROUP_OPTIONAL)" \
    "$TEST_TMP/prte.err" && pass "beside: node1 handed rank 0's construct over without rank 3" ||
    fail "beside: node1 did not say it went on without rank 3"
nothing_held beside

# ---- rank 3 (beside rank 0 on node1) is killed before any member calls: the construct starts
# after its death. PMIx 4.2.2 counted a dead client as one of node1's members of every later group
# operation naming it, so rank 0's construct never reached the DVM; node1 now deregisters it ----
timeout 120 "$PRUN" --enable-recovery -n 4 --map-by node "$CLIENTS/group" --id after --by-rank --optional \
    --late-rank 3 --call-after "$TEST_TMP/after-call" >"$TEST_TMP/after.out" 2>"$TEST_TMP/after.err" &
job=$!
kill_then_call after node1
survived after 3 3
nothing_held after

# ---- rank 2, alone on node3, leaves normally without joining: a normal end is not broadcast, but
# node3's daemon was asked to watch the members of this group operation across nodes, and tells the
# collectives of it ----
leave_late quit construct --by-rank --optional
survived quit 2 2
grep -q "^\[node3\].*:2 .*ended normally before it took part in" \
    "$TEST_TMP/prte.err" && pass "quit: node3 told the collectives of rank 2's normal end" ||
    fail "quit: node3 did not tell of rank 2's end"
job_holds_nothing quit "$(sed -n 's/.*group quit construct over \([^:]*\):.*/\1/p' "$TEST_TMP/prte.err" | head -1)"
finish
