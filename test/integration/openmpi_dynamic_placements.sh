#!/bin/sh
# Issue 32: Open MPI 4.1's dynamic processes with every placement, on 4 local nodes (rml_radix 2).
#  - MPI_Comm_spawn with the children beside their parents, apart from them, and mixed; 1, 2 and 3
#    children; from 1 and from 2 parents; and from a job that fills every slot with
#    --map-by :OVERSUBSCRIBE (the children inherit it). Each case: the exit status, an allreduce
#    over the merged communicator, MPI_Comm_disconnect on every process, and every child's stdout
#    and stderr reaching the parents' prun, tagged with the child job.
#  - The PMIx calls underneath (spawn, connect, fence over two namespaces, get, disconnect) from
#    our own client, with the children beside, apart and mixed.
#  - MPI_Comm_accept/connect between two jobs on the same node, on disjoint nodes, and partly shared.
#  - A parent job killed while its children run: they end with it, say so, and free their slots.
# Before the fixes: a parent and a child sharing a node hung in MPI_Comm_disconnect (a daemon
# without a process of a job had not registered its namespace with PMIx, which then held the fence
# for ever), the children's output was lost, the oversubscribed spawn failed with -181 and no
# reason, killed parents left their children running, and 2 ranks on each node crashed in Open
# MPI's shared memory (every local node has this machine's hostname). Skips without mpicc. Run on
# the namespace test-bed too (openmpi_dynamic_placements_netns.sh, root).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"
if [ ! -x "$CLIENTS/mpi_spawn" ] || [ ! -x "$CLIENTS/mpi_connect" ] || [ ! -x "$CLIENTS/mpi_hello" ]; then
    echo "SKIP: test/clients/mpi_spawn was not built (mpicc not found: apt-get install libopenmpi-dev)"
    exit 77
fi

# The same checks on the namespace test-bed (each node its own network namespace and hostname)
# when ODP_TESTBED=netns (openmpi_dynamic_placements_netns.sh); local nodes otherwise.
if [ "${ODP_TESTBED:-local}" = netns ]; then
    start_netns_nodes_dvm 4 pdp 198.18.11 --prtemca rml_radix 2
else
    start_local_nodes_dvm 4 2
fi

# Open MPI's shared memory with 2 ranks on each of 4 nodes: on local nodes (one hostname) its
# segments of different nodes collided and the job crashed.
run shared_memory timeout 90 "$PRUN" -n 8 --map-by node "$CLIENTS/mpi_hello"
expect_status shared_memory 0
expect_line shared_memory out "mpi ok size 8"

# hosts_of NAME WHO: the sorted, distinct nodes of the parents or children of run NAME.
hosts_of() {
    sed -n "s/^\[[0-9]*,[0-9]*\]<stdout>: mpi $2 rank [0-9]* .*host \([^ ]*\).*/\1/p" "$TEST_TMP/$1.out" | sort -u
}

# placement_class NAME: beside (every child on a parent's node), apart (none), or mixed.
placement_class() {
    hosts_of "$1" parent >"$TEST_TMP/$1.parents"
    hosts_of "$1" child >"$TEST_TMP/$1.children"
    shared=$(comm -12 "$TEST_TMP/$1.parents" "$TEST_TMP/$1.children" | wc -l)
    children=$(wc -l <"$TEST_TMP/$1.children")
    if [ "$shared" -eq 0 ]; then echo apart; elif [ "$shared" -eq "$children" ]; then echo beside; else echo mixed; fi
}

# count NAME out|err PATTERN: lines of run NAME's stream matching the regex.
count() { grep -c -- "$3" "$TEST_TMP/$1.$2"; }

# spawn_case NAME PARENTS CHILDREN CLASS [prun options...]: PARENTS ranks spawn CHILDREN children,
# who must land CLASS (beside, apart, mixed) relative to their parents.
spawn_case() {
    name=$1 parents=$2 children=$3 class=$4
    shift 4
    run "$name" timeout 90 "$PRUN" -n "$parents" --output tag "$@" "$CLIENTS/mpi_spawn" "$children"
    expect_status "$name" 0
    expect_line "$name" out "mpi spawn ok parents $parents children $children"
    all=$((parents + children))
    n=$(count "$name" out "<stdout>: mpi child rank .* total $all\$")
    [ "$n" = "$children" ] && pass "$name: the $children children's stdout reached prun" ||
        fail "$name: $n of $children children's stdout lines reached prun"
    n=$(count "$name" err "<stderr>: mpi child rank [0-9]* stderr")
    [ "$n" = "$children" ] && pass "$name: the children's stderr reached prun's stderr" ||
        fail "$name: $n of $children children's stderr lines reached prun"
    if grep "mpi child rank" "$TEST_TMP/$name.out" | grep -qv '^\[[0-9]*,[0-9]*\]<stdout>: '; then
        fail "$name: a child's line is not tagged with its job"
    fi
    parent_job=$(sed -n 's/^\[\([0-9]*\),0\]<stdout>: mpi spawn ok.*/\1/p' "$TEST_TMP/$name.out")
    child_job=$(sed -n 's/^\[\([0-9]*\),0\]<stdout>: mpi child rank 0 .*/\1/p' "$TEST_TMP/$name.out")
    [ -n "$child_job" ] && [ "$child_job" != "$parent_job" ] && pass "$name: children tagged with their own job ($child_job)" ||
        fail "$name: children tagged '$child_job', parents '$parent_job'"
    n=$(count "$name" out "mpi [a-z]* rank [0-9]* disconnected")
    [ "$n" = "$all" ] && pass "$name: all $all processes returned from MPI_Comm_disconnect" ||
        fail "$name: $n of $all processes returned from MPI_Comm_disconnect"
    actual=$(placement_class "$name")
    [ "$actual" = "$class" ] && pass "$name: children $class their parents" ||
        fail "$name: children $actual their parents, expected $class: $(cat "$TEST_TMP/$name.out")"
}

spawn_case one_parent_child_beside 1 1 beside --host node1
spawn_case two_parents_child_beside 2 1 beside --map-by node
spawn_case two_parents_two_children_beside 2 2 beside --map-by node
spawn_case two_parents_three_children_mixed 2 3 mixed --map-by node
spawn_case four_parents_two_children_apart 4 2 apart --host node1:2,node2:2
spawn_case one_parent_three_children_mixed 1 3 mixed --host node1
# Every slot of the DVM taken by the parents: the children may go only because they inherit
# :OVERSUBSCRIBE (PRRTE's default); beside their parents, since every node has parents.
spawn_case oversubscribed_spawn 8 1 beside --map-by :OVERSUBSCRIBE

# Without :OVERSUBSCRIBE to inherit, the same spawn fails, and the parents' prun says why.
run spawn_refused timeout 90 "$PRUN" -n 8 "$CLIENTS/mpi_spawn" 1
[ "$(status_of spawn_refused)" != 0 ] && pass "a spawn that cannot be placed ends the job" ||
    fail "a spawn onto full nodes succeeded without :OVERSUBSCRIBE"
expect_line spawn_refused err "failed: not enough slots for app 0"

# The PMIx calls underneath, from our own client: PMIx_Spawn, PMIx_Connect, a fence over both
# namespaces collecting data, PMIx_Get of the other job's key, PMIx_Disconnect. pmix_case NAME
# PARENTS CHILDREN CLASS [prun options...].
pmix_case() {
    name=$1 parents=$2 children=$3 class=$4
    shift 4
    run "$name" timeout 90 "$PRUN" -n "$parents" --output tag "$@" "$CLIENTS/multins" "$children"
    expect_status "$name" 0
    n=$(count "$name" out "multins [a-z]* rank [0-9]* host .* got ")
    all=$((parents + children))
    [ "$n" = "$all" ] && pass "$name: all $all processes connected, fenced, got the other job's key, disconnected" ||
        fail "$name: $n of $all processes finished: $(cat "$TEST_TMP/$name.out" "$TEST_TMP/$name.err")"
    sed -i 's/multins \([a-z]*\) rank \([0-9]*\) host \([^ ]*\) .*/mpi \1 rank \2 host \3/' "$TEST_TMP/$name.out"
    actual=$(placement_class "$name")
    [ "$actual" = "$class" ] && pass "$name: children $class their parents" ||
        fail "$name: children $actual their parents, expected $class"
}

pmix_case pmix_child_beside 2 1 beside --map-by node
pmix_case pmix_children_mixed 2 3 mixed --map-by node
pmix_case pmix_children_apart 4 2 apart --host node1:2,node2:2

# connect_case NAME ACCEPT_HOSTS CONNECT_HOSTS: a job on the first hosts accepts one on the second.
connect_case() {
    name=$1
    na=$(echo "$2" | tr , '\n' | wc -l)
    nc=$(echo "$3" | tr , '\n' | wc -l)
    rm -f "$TEST_TMP/$name.port"
    "$PRUN" -n "$na" --host "$2" "$CLIENTS/mpi_connect" accept "$TEST_TMP/$name.port" \
        >"$TEST_TMP/${name}_accept.out" 2>"$TEST_TMP/${name}_accept.err" &
    acceptor=$!
    run "$name" timeout 90 "$PRUN" -n "$nc" --host "$3" "$CLIENTS/mpi_connect" connect "$TEST_TMP/$name.port"
    wait "$acceptor"
    accept_status=$?
    expect_status "$name" 0
    expect_line "$name" out "mpi connect ok total $((na + nc))"
    [ $accept_status = 0 ] && grep -q "mpi accept ok total $((na + nc))" "$TEST_TMP/${name}_accept.out" &&
        pass "$name: the acceptor saw $((na + nc)) processes" ||
        fail "$name: the acceptor exited $accept_status: $(cat "$TEST_TMP/${name}_accept.out" "$TEST_TMP/${name}_accept.err")"
}

connect_case connect_same_node node1 node1
connect_case connect_disjoint_nodes node1 node2
connect_case connect_partly_shared node1,node2 node2,node3

# Children that outlive their parents (they work on after disconnecting): the parents' prun waits
# for them, their last lines reach it, and nothing is killed.
run outlived timeout 90 "$PRUN" -n 2 --map-by node "$CLIENTS/mpi_spawn" 2 late
expect_status outlived 0
n=$(count outlived out "mpi child rank [0-9]* done late")
[ "$n" = 2 ] && pass "the children's lines after their parents' end reached prun" ||
    fail "$n of 2 children's late lines reached prun: $(cat "$TEST_TMP/outlived.out")"
expect_no_line outlived err "was ended because"

# A parent job killed while its child runs (the child never disconnects): the child ends with it,
# the parents' prun says so, and the child's slot on node1 is free again.
"$PRUN" -n 1 --host node1 --output tag "$CLIENTS/mpi_spawn" 1 hang >"$TEST_TMP/killed.out" 2>"$TEST_TMP/killed.err" &
spawner=$!
wait_for_line "$TEST_TMP/killed.out" "mpi child rank 0 of 1" ||
    wait_for_line "$TEST_TMP/killed.out" "mpi child rank 0 of 1" || fail "the hanging child never started"
kill -TERM "$spawner"
wait "$spawner"
grep -q "was ended because job .*, whose process spawned it, ended" "$TEST_TMP/killed.err" &&
    pass "the parents' prun says why the child job ended" || fail "no reason for the child's end: $(cat "$TEST_TMP/killed.err")"
left=0
t=0
while [ $t -lt 100 ]; do
    left=$(test_pids -f "$CLIENTS/mpi_spawn child" | wc -l)
    [ "$left" -eq 0 ] && break
    sleep 0.1
    t=$((t + 1))
done
[ "$left" -eq 0 ] && pass "the child ended with its parent" || fail "$left child process(es) outlived their parent job"
run slots_free timeout 60 "$PRUN" -n 2 --host node1:2 "$JOBINFO"
expect_status slots_free 0

stop_dvm
finish
