# The test-bed (test/testbed/, spec: DESIGN.md "The test-bed: many nodes on one machine") really gives
# many nodes on one machine: the local-node agent runs commands as a node with stdin forwarded, and
# namespace nodes are reachable, run sshd under their own hostname, can lose their link and come back,
# and leave nothing behind. The namespace part needs root and a working `ip netns`; without them it skips
# (exit 77) after the local checks. Run it alone with: bash test/integration/testbed_selftest.sh
: "${PRTE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
# The test-bed needs nothing built; lib.sh wants a build dir, so outside CTest the source dir stands in.
: "${PRTE_BUILDDIR:=$PRTE_SRCDIR}"
export PRTE_SRCDIR PRTE_BUILDDIR
. "$PRTE_SRCDIR/test/integration/lib.sh"

LOCAL_AGENT=$PRTE_SRCDIR/test/testbed/local-agent
NETNS_NODES=$PRTE_SRCDIR/test/testbed/netns-nodes

# expect_out <name> <text>: stdout is exactly the text.
expect_out() {
    if [ "$(cat "$TEST_TMP/$1.out")" = "$2" ]; then pass "$1 prints '$(echo "$2" | paste -sd'|' -)'"; else
        fail "$1 printed '$(paste -sd'|' - <"$TEST_TMP/$1.out")', expected '$(echo "$2" | paste -sd'|' -)'"
        sed 's/^/    stderr: /' "$TEST_TMP/$1.err"
    fi
}

# expect_same_pid <name>: the two lines of stdout (an agent's pid, then the pid its command saw) match.
expect_same_pid() {
    if [ "$(sed -n 1p "$TEST_TMP/$1.out")" = "$(sed -n 2p "$TEST_TMP/$1.out")" ]; then
        pass "$1: the agent's pid is its command's"
    else fail "$1: agent pid and command pid differ: $(paste -sd' ' - <"$TEST_TMP/$1.out")"; fi
}

# --- Local nodes: no privileges.
run local_name "$LOCAL_AGENT" n1 'echo $PRTE_MCA_prte_node_name; hostname'
expect_status local_name 0
expect_out local_name "n1
$(hostname)"

run local_ssh_options "$LOCAL_AGENT" -x -o BatchMode=yes -p 22 -oConnectTimeout=5 -F /dev/null -l root n7 \
    'echo $PRTE_MCA_prte_node_name'
expect_out local_ssh_options n7

run local_words "$LOCAL_AGENT" n1 echo a b 'c  d'
expect_out local_words "a b c d"

run local_stdin sh -c 'echo hi | "$0" n1 cat' "$LOCAL_AGENT"
expect_out local_stdin hi

run local_pid bash -c '"$0" n1 "echo \$\$" & echo $!; wait' "$LOCAL_AGENT"
expect_same_pid local_pid

run local_exit_status "$LOCAL_AGENT" n1 'exit 3'
expect_status local_exit_status 3

run local_no_command "$LOCAL_AGENT" n1
expect_status local_no_command 255
expect_line local_no_command err "local-agent: error: no command given for node 'n1'"

run local_no_node "$LOCAL_AGENT" -p 22
expect_status local_no_node 255
expect_line local_no_node err "local-agent: error: no node given"

# --- Namespace nodes: root, a usable `ip netns`, and sshd.
skip_netns() {
    [ "$failures" -eq 0 ] || finish
    echo "SKIP: $* (the local-node checks passed)"
    exit 77
}

if [ "$(id -u)" -ne 0 ]; then
    run netns_not_root "$NETNS_NODES" status
    expect_status netns_not_root 77
    expect_line netns_not_root err "SKIP: namespace nodes need root"
    skip_netns "namespace nodes need root"
fi
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$NETNS_NODES"; then
    run netns_not_root setpriv --reuid=65534 --regid=65534 --clear-groups "$NETNS_NODES" up 3
    expect_status netns_not_root 77
    expect_line netns_not_root err "SKIP: namespace nodes need root"
fi

# A prefix of our own keeps interface names within 15 characters (ptbNNNNN-br0) and clear of others'.
PRTE_TESTBED_PREFIX=ptb$(($$ % 100000))-
export PRTE_TESTBED_PREFIX
unset PRTE_TESTBED_NODE_PREFIX PRTE_TESTBED_SUBNET
probe=${PRTE_TESTBED_PREFIX}probe
if ! ip netns add "$probe" 2>"$TEST_TMP/probe.err" || ! ip netns exec "$probe" true 2>>"$TEST_TMP/probe.err"; then
    ip netns del "$probe" 2>/dev/null
    skip_netns "ip netns is not usable here ($(head -n 1 "$TEST_TMP/probe.err")); namespace nodes need CAP_SYS_ADMIN and CAP_NET_ADMIN"
fi
ip netns del "$probe"
for tool in /usr/sbin/sshd ssh ssh-keygen unshare; do
    command -v "$tool" >/dev/null || skip_netns "$tool not found; install openssh-server openssh-client (contrib/install-deps.sh)"
done

STATE=$(mktemp -d "${TMPDIR:-/tmp}/prte-testbed.XXXXXX")
cleanup() {
    "$NETNS_NODES" down --dir "$STATE" >/dev/null 2>&1
    rm -rf "$STATE" "$TEST_TMP" "/etc/netns/${PRTE_TESTBED_PREFIX}node2"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# reach <address>: a shell command that succeeds when the address answers (ping, or sshd's port).
reach() {
    if command -v ping >/dev/null; then echo "ping -c1 -W${2:-2} $1 >/dev/null"; else
        echo "timeout ${2:-2} bash -c 'exec 3<>/dev/tcp/$1/22'"
    fi
}

# Without sshd: the namespace agent.
run up_plain "$NETNS_NODES" up 2 --dir "$STATE"
expect_status up_plain 0
[ "$(status_of up_plain)" = 0 ] || finish
run netns_agent_hostname "$STATE/netns-agent" node1 hostname
expect_out netns_agent_hostname "node1"
run netns_agent_stdin sh -c 'echo hi | "$0" -o BatchMode=yes node2 cat' "$STATE/netns-agent"
expect_out netns_agent_stdin hi
run netns_agent_pid bash -c '"$0" node2 "echo \$\$" & echo $!; wait' "$STATE/netns-agent"
expect_same_pid netns_agent_pid
run netns_agent_resolves "$STATE/netns-agent" node1 'getent hosts node2'
expect_line netns_agent_resolves out "198.18.0.2"
run netns_agent_unknown "$STATE/netns-agent" node9 true
expect_status netns_agent_unknown 255
expect_line netns_agent_unknown err "netns-agent: error: 'node9' is not a node"

# With sshd, in the same state dir: up replaces the stale test-bed first.
run up "$NETNS_NODES" up 3 --sshd --dir "$STATE"
expect_status up 0
[ "$(status_of up)" = 0 ] || finish
if [ "$(cat "$STATE/hostfile" 2>/dev/null)" = "$(printf 'node1\nnode2\nnode3')" ]; then pass "hostfile names node1..node3"; else
    fail "hostfile is '$(paste -sd' ' - <"$STATE/hostfile")', expected node1..node3"; fi
if grep -qx '198.18.0.2 node2' "$STATE/hosts"; then pass "hosts maps 198.18.0.2 to node2"; else fail "hosts lacks '198.18.0.2 node2'"; fi

run reach_node2 sh -c "$(reach 198.18.0.2)"
expect_status reach_node2 0
run ssh_hostname "$STATE/ssh-agent" node2 hostname
expect_out ssh_hostname node2
run ssh_stdin sh -c 'echo hi | "$0" node2 cat' "$STATE/ssh-agent"
expect_out ssh_stdin hi
run ssh_send_env env PRTE_TESTBED_PROBE=42 "$STATE/ssh-agent" -o SendEnv=PRTE_TESTBED_PROBE node3 'echo $PRTE_TESTBED_PROBE'
expect_out ssh_send_env 42
run node1_reaches_node3 ip netns exec "${PRTE_TESTBED_PREFIX}node1" sh -c "$(reach 198.18.0.3)"
expect_status node1_reaches_node3 0
run status "$NETNS_NODES" status --dir "$STATE"
expect_line status out "${PRTE_TESTBED_PREFIX}node3"
expect_line status out "sshd"

# A link taken down makes the node unreachable; back up, it answers again.
run link_down "$NETNS_NODES" link node2 down --dir "$STATE"
expect_status link_down 0
run node2_cut_off sh -c "$(reach 198.18.0.2 1)"
if [ "$(status_of node2_cut_off)" != 0 ]; then pass "node2 unreachable with its link down"; else fail "node2 still reachable with its link down"; fi
run link_up "$NETNS_NODES" link node2 up --dir "$STATE"
expect_status link_up 0
run node2_back sh -c "for i in 1 2 3; do $(reach 198.18.0.2) && exit 0; done; exit 1"
expect_status node2_back 0

# down leaves nothing with our prefix: namespaces, interfaces, sshds, state.
check_nothing_left() {
    local left
    left=$({
        ip netns list | grep -F "$PRTE_TESTBED_PREFIX"
        ip -o link show | grep -F "$PRTE_TESTBED_PREFIX"
        pgrep -af "$STATE"
        [ ! -e "$STATE" ] || echo "state dir $STATE"
        [ ! -e "/etc/netns/${PRTE_TESTBED_PREFIX}node1" ] || echo "/etc/netns/${PRTE_TESTBED_PREFIX}node1"
    })
    if [ -z "$left" ]; then pass "$1 leaves nothing behind"; else
        fail "$1 left: $(echo "$left" | paste -sd';' -)"
    fi
}
run down "$NETNS_NODES" down --dir "$STATE"
expect_status down 0
check_nothing_left down

# up failing midway (node2's hosts entry cannot be made) removes what it had created.
mkdir -p /etc/netns && touch "/etc/netns/${PRTE_TESTBED_PREFIX}node2"
run up_fails "$NETNS_NODES" up 3 --sshd --dir "$STATE"
expect_status up_fails 1
expect_line up_fails err "netns-nodes: up failed; removing what it created"
check_nothing_left "a failed up"

finish
