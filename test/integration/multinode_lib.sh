# Helpers for tests of multi-daemon DVMs on the local-node test-bed (sourced after dvm_lib.sh):
# every "node" is this machine, each daemon told its node name by test/testbed/local-agent, all
# listening on loopback only.
LOCAL_AGENT="$PRTE_SRCDIR/test/testbed/local-agent"
PRTED="$PRTE_BUILDDIR/src/prted/prted"

# start_local_nodes_dvm N RADIX [prte options...]: a DVM of the master plus N daemons (node1..N).
start_local_nodes_dvm() {
    n=$1
    radix=$2
    shift 2
    : >"$TEST_TMP/hosts"
    i=1
    while [ "$i" -le "$n" ]; do echo "node$i" >>"$TEST_TMP/hosts"; i=$((i + 1)); done
    # Local nodes are all this machine, on loopback: Open MPI's TCP transport is kept there too.
    # Otherwise it binds to whatever interfaces exist, and a namespace or Slurm test running
    # beside this one tears its bridge down between Open MPI's look and its bind (EADDRNOTAVAIL).
    OMPI_MCA_btl_tcp_if_include=lo
    export OMPI_MCA_btl_tcp_if_include
    start_dvm_foreground --hostfile "$TEST_TMP/hosts" --prtemca plm_ssh_agent "$LOCAL_AGENT" \
        --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include lo --prtemca rml_radix "$radix" "$@"
}

# start_netns_nodes_dvm N PREFIX SUBNET [prte options...]: N namespace nodes (needs root: skips
# otherwise, see require_netns) in $STATE, and a DVM on them; both torn down when the test exits.
start_netns_nodes_dvm() {
    n=$1
    require_netns "$2" "$3"
    shift 3
    NETNS_NODES="$PRTE_SRCDIR/test/testbed/netns-nodes"
    STATE="$TEST_TMP/testbed"
    trap 'stop_dvm; "$NETNS_NODES" down --dir "$STATE" >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
    trap 'exit 130' INT TERM
    "$NETNS_NODES" up "$n" --dir "$STATE" >"$TEST_TMP/up.out" 2>&1 || { cat "$TEST_TMP/up.out"; fail "netns-nodes up $n"; finish; }
    start_dvm_foreground --hostfile "$STATE/hostfile" --prtemca plm_ssh_agent "$STATE/netns-agent" \
        --prtemca plm_base_prted "$PRTED" --prtemca oob_tcp_if_include "$PRTE_TESTBED_SUBNET.0/24" "$@"
}

# start_dvm_foreground [prte options...]: prte in the background of this shell, not daemonized, so
# that its stderr - where the daemons' own messages arrive, prefixed with their node - stays in
# $TEST_TMP/prte.err for the checks. Waits for "DVM ready" (or prte's exit, or 60 s).
start_dvm_foreground() {
    # Emptied here, not only by the background redirection below, which may run after the first
    # look: a second DVM of a test must not be taken as ready on the first one's "DVM ready".
    : >"$TEST_TMP/prte.out"
    "$PRTE" "$@" >"$TEST_TMP/prte.out" 2>"$TEST_TMP/prte.err" &
    DVM_PID=$!
    t=0
    while ! grep -q "DVM ready" "$TEST_TMP/prte.out"; do
        if ! alive "$DVM_PID" || [ $t -ge 600 ]; then
            echo "FAIL: prte did not report 'DVM ready'"
            sed 's/^/    /' "$TEST_TMP/prte.out" "$TEST_TMP/prte.err"
            kill -9 "$DVM_PID" 2>/dev/null
            DVM_PID=
            exit 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
}

# The pids of this test's DVM's daemons (prted processes naming its namespace).
dvm_daemons() {
    pgrep -f "prted.*--dvm-nspace prte-[^ ]*-$DVM_PID( |\$)" | while read -r p; do
        # the agent's "sh -c" carries the same words: keep only prted itself
        case $(cat "/proc/$p/comm" 2>/dev/null) in prted|lt-prted) echo "$p" ;; esac
    done
}

# daemon_pid RANK: the pid of daemon RANK of this test's DVM.
daemon_pid() {
    for p in $(dvm_daemons); do
        if tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- "--rank $1 "; then echo "$p"; return; fi
    done
}

# daemon_port RANK: the TCP port daemon RANK's messenger listens on, from its own log line (the
# DVM must run with rml_base_verbose 5; a daemon also has PMIx's listener, so ss cannot tell).
daemon_port() {
    sed -n "s/.*rml: daemon $1 listening at tcp:\/\/127.0.0.1:\([0-9]*\).*/\1/p" "$TEST_TMP/prte.err" | head -1
}

# wait_gone PID...: waits (up to 10 s) until none of the processes is alive; false otherwise.
wait_gone() {
    t=0
    while [ $t -lt 100 ]; do
        any=
        for p in "$@"; do if alive "$p"; then any=1; fi; done
        [ -z "$any" ] && return 0
        sleep 0.1
        t=$((t + 1))
    done
    return 1
}

# wait_for_line FILE TEXT: waits (up to 10 s) until FILE has a line matching TEXT (grep regex).
wait_for_line() {
    t=0
    while ! grep -q -- "$2" "$1" 2>/dev/null; do
        [ $t -ge 100 ] && return 1
        sleep 0.1
        t=$((t + 1))
    done
}

# wait_for_lines FILE PATTERN COUNT TENTHS [PID]: waits until FILE has COUNT lines matching
# PATTERN, at most TENTHS tenths of a second, and no longer than process PID lives. A FILE not yet
# written counts as no lines (grep -c prints nothing for it, which used to end the wait at once).
wait_for_lines() {
    t=0
    while [ $t -lt "$4" ]; do
        n=$(grep -c -- "$2" "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$3" ] && return
        [ -n "${5:-}" ] && ! alive "$5" && return
        sleep 0.1
        t=$((t + 1))
    done
}

# require_netns PREFIX SUBNET: namespace nodes need root and a usable `ip netns`; otherwise the test
# is skipped (exit 77) with the reason. Exports the test-bed's prefix and subnet (each test its own,
# so that tests never share namespaces or addresses).
require_netns() {
    if [ "$(id -u)" -ne 0 ]; then echo "SKIP: namespace nodes need root"; exit 77; fi
    PRTE_TESTBED_PREFIX=$1$(($$ % 100000))-
    PRTE_TESTBED_SUBNET=$2
    export PRTE_TESTBED_PREFIX PRTE_TESTBED_SUBNET
    probe=${PRTE_TESTBED_PREFIX}probe
    if ! ip netns add "$probe" 2>/dev/null || ! ip netns exec "$probe" true 2>/dev/null; then
        ip netns del "$probe" 2>/dev/null
        echo "SKIP: ip netns is not usable here (namespace nodes need CAP_SYS_ADMIN and CAP_NET_ADMIN)"
        exit 77
    fi
    ip netns del "$probe"
}

# Where a job's ranks land: jobinfo prints "rank R of N ... host H app A" for each rank.
JOBINFO="$PRTE_BUILDDIR/test/clients/jobinfo"

# placement NAME: the node of each rank of a jobinfo run, in rank order ("node3 node1 ...").
placement() {
    sed -n 's/^rank \([0-9]*\) of [0-9]* .* host \([^ ]*\) app .*/\1 \2/p' "$TEST_TMP/$1.out" | sort -n |
        awk '{printf "%s%s", sep, $2; sep = " "}'
}

# expect_placement NAME "node..": the job ran and its ranks landed there.
expect_placement() {
    expect_status "$1" 0
    actual=$(placement "$1")
    if [ "$actual" = "$2" ]; then pass "$1 placed on: $2"; else
        fail "$1 placed on '$actual', expected '$2'"
        sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"
    fi
}

# running_sleeps: the `sleep` processes the daemons of this DVM have launched.
running_sleeps() {
    for d in $(dvm_daemons); do pgrep -P "$d" -x sleep; done
}

# wait_for_sleeps N: waits (up to 10 s) until the daemons run at least N of them.
wait_for_sleeps() {
    t=0
    while [ "$(running_sleeps | wc -l)" -lt "$1" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
    [ "$(running_sleeps | wc -l)" -ge "$1" ]
}

# group_event_once NAME KIND COUNT LATE: the group client's output $TEST_TMP/NAME.out shows each of
# COUNT survivors heard the group event KIND ("invite": PMIX_GROUP_INVITE_FAILED, "member":
# PMIX_GROUP_MEMBER_FAILED) naming rank LATE and group NAME, and no other such event.
group_event_once() {
    lines=$(grep "^group $2 failed rank [0-9]*: member [^ ]*:$4 group $1$" "$TEST_TMP/$1.out")
    ranks=$(echo "$lines" | sed -n "s/^group $2 failed rank \([0-9]*\):.*/\1/p" | sort -u | wc -l)
    total=$(grep -c "^group $2 failed rank" "$TEST_TMP/$1.out")
    if [ "$ranks" = "$3" ] && [ "$total" = "$3" ]; then
        pass "$1: each of the $3 survivors heard the $2-failed event naming rank $4, once"
    else
        fail "$1: $ranks of $3 survivors heard the $2-failed event naming rank $4 ($total in all)"
        sed 's/^/    /' "$TEST_TMP/$1.out"
    fi
}

# kill_late_member NAME: kills the late rank of the group client, which said its pid in $TEST_TMP/NAME.out.
kill_late_member() {
    kill -9 "$(sed -n 's/^group late rank [0-9]* waits, pid \([0-9]*\)$/\1/p' "$TEST_TMP/$1.out")"
}

# ended_by_kill NAME: waits for $job, which must end with the killed rank's status (137).
ended_by_kill() {
    wait "$job"
    status=$?
    if [ $status = 137 ]; then pass "$1: the job ended with the failure's status, no hang"; else
        fail "$1: prun exited $status (124: it hung)"; sed 's/^/    /' "$TEST_TMP/$1.out" "$TEST_TMP/$1.err"; fi
}

# in_collective NAME OP NODE...: waits until each NODE's daemon has contributed to the collective of
# group NAME's OP ("construct" or "destruct"), that is, until that node's members have all called.
in_collective() {
    name=$1
    op=$2
    shift 2
    for node in "$@"; do
        wait_for_line "$TEST_TMP/prte.err" "^\[$node\].*allgather .*group $name $op.*from this daemon" ||
            fail "$name: $node never joined the $op's collective"
    done
}

# leave_late NAME OP CLIENT-ARGS...: runs the group client (group NAME, 3 ranks by node, rank 2 late,
# leaving normally once $TEST_TMP/NAME-leave exists) in the background; once node1's and node2's
# members are in OP's collective ("construct" or "destruct"), lets rank 2 leave and waits for the
# job, which must end normally.
leave_late() {
    name=$1
    op=$2
    shift 2
    timeout 120 "$PRUN" -n 3 --map-by node "$CLIENTS/group" --id "$name" --late-rank 2 \
        --late-until "$TEST_TMP/$name-leave" "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job=$!
    wait_for_lines "$TEST_TMP/$name.out" '^group late rank' 1 600 "$job"
    in_collective "$name" "$op" node1 node2
    : >"$TEST_TMP/$name-leave"
    wait "$job"
    status=$?
    [ $status = 0 ] && pass "$name: the job ended normally, no hang" || fail "$name: prun exited $status (124: it hung)"
}

# kill_late_when NAME PRUN-ARGS...: runs prun --enable-recovery PRUN-ARGS (the group client with a
# late rank) in the background as $job; once the late rank has said its pid and every line in
# $waits (patterns without spaces: what shows the others are in the operation) is in the DVM's
# log, kills the late rank and waits for the job, which must end with the kill's status.
kill_late_when() {
    name=$1
    shift
    timeout 120 "$PRUN" --enable-recovery "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
    job=$!
    wait_for_lines "$TEST_TMP/$name.out" '^group late rank' 1 600 "$job"
    for pattern in $waits; do wait_for_line "$TEST_TMP/prte.err" "$pattern" || fail "$name: no '$pattern'"; done
    kill_late_member "$name"
    ended_by_kill "$name"
}

# kill_then_call NAME NODE: for the group client started in the background as $job (output in
# $TEST_TMP/NAME.out; --late-rank R --call-after "$TEST_TMP/NAME-call"): kills rank R once it waits,
# lets the others call once NODE's daemon has handled R's end, and waits for the job, which must
# end with the kill's status (137).
kill_then_call() {
    wait_for_lines "$TEST_TMP/$1.out" '^group late rank' 1 600 "$job"
    late=$(sed -n 's/^group late rank \([0-9]*\) waits.*/\1/p' "$TEST_TMP/$1.out")
    # Counted before the kill: an earlier case's rank of the same number on NODE logged the same line.
    handled="^\[$2\].*:$late ended: PMIx has handled the end of its connection"
    before=$(grep -c -- "$handled" "$TEST_TMP/prte.err")
    kill_late_member "$1"
    wait_for_lines "$TEST_TMP/prte.err" "$handled" $((before + 1)) 100
    [ "$(grep -c -- "$handled" "$TEST_TMP/prte.err")" -gt "$before" ] || fail "$1: $2 never handled rank $late's end"
    : >"$TEST_TMP/$1-call"
    ended_by_kill "$1"
}

# nothing_held NAME: once the job whose rank was killed (prun's line in $TEST_TMP/NAME.err) is
# released, no daemon - the master or any of 3 - keeps collective state or the ended rank for it.
nothing_held() {
    job_holds_nothing "$1" "$(sed -n 's/.*rank [0-9]* of job \([^ ]*\) on node .* was killed by signal 9.*/\1/p' \
        "$TEST_TMP/$1.err" | head -1)"
}

# job_holds_nothing NAME NSPACE: the same for job NSPACE, named by the test.
job_holds_nothing() {
    ns=$2
    wait_for_lines "$TEST_TMP/prte.err" "job $ns released; still held" 4 100
    held=$(grep "job $ns released; still held" "$TEST_TMP/prte.err")
    if [ -n "$ns" ] && [ "$(echo "$held" | grep -c ", 0 collective(s), .*, 0 ended process(es)$")" = 4 ]; then
        pass "$1: no collective or ended process left on the master or any daemon"
    else
        fail "$1: after the job: $held"
    fi
}
