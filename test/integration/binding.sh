#!/bin/sh
# Issue 25 (binding, in part): PRRTE's binding rules on this node, each checked by the processes'
# own Cpus_allowed_list.
#  - no --bind-to: each process on its own core (was: every process on every CPU), or on the
#    mapping's object (--map-by core); none on an oversubscribed node;
#  - --bind-to core with more processes than cores is refused, naming the node and the core,
#    unless :overload-allowed; :report prints each binding; a level the node lacks is refused
#    unless :if-supported; unknown levels and qualifiers are refused with the valid ones.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
# Cores as the kernel sees them (hwloc's command-line tools need not be installed).
cores=$(cat /sys/devices/system/cpu/cpu*/topology/core_cpus_list 2>/dev/null | sort -u | wc -l)
[ "$cores" -ge 1 ] 2>/dev/null || cores=$(grep -c ^processor /proc/cpuinfo)
if [ "$cores" -lt 2 ]; then echo "SKIP: binding checks need at least 2 cores (this node has $cores)"; exit 77; fi
start_dvm --prtemca ras_base_verbose 0

# cpus NAME: the sorted Cpus_allowed_list values the job's processes printed, one per line.
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$TEST_TMP/$1.out" | sort; }
show='grep Cpus_allowed_list /proc/self/status'
all=$(grep Cpus_allowed_list /proc/self/status | sed 's/^Cpus_allowed_list:[[:space:]]*//')

run default "$PRUN" -n 2 sh -c "$show"
expect_status default 0
n=$(cpus default | sort -u | wc -l)
[ "$n" = 2 ] && ! cpus default | grep -qx "$all" && pass "by default each process has a core of its own ($(cpus default | tr '\n' ' '))" ||
    fail "default binding: $(cpus default | tr '\n' ' ') (all CPUs: $all)"

run map_core "$PRUN" -n 2 --map-by core sh -c "$show"
expect_status map_core 0
[ "$(cpus map_core | sort -u | wc -l)" = 2 ] && pass "--map-by core binds each process to its core" ||
    fail "--map-by core: $(cpus map_core | tr '\n' ' ')"

over=$((cores + 1))
run oversubscribed "$PRUN" -n $over --map-by :OVERSUBSCRIBE sh -c "$show"
expect_status oversubscribed 0
[ "$(cpus oversubscribed | sort -u)" = "$all" ] && pass "an oversubscribed node binds nothing by default" ||
    fail "oversubscribed: $(cpus oversubscribed | tr '\n' ' ')"

run overload "$PRUN" -n $over --map-by :OVERSUBSCRIBE --bind-to core sh -c "$show"
[ "$(status_of overload)" != 0 ] && pass "binding $over processes to $cores cores is refused" || fail "overload was accepted"
expect_line overload err "processes to core 0 on node"
expect_line overload err "add --bind-to core:overload-allowed"

run overload_ok "$PRUN" -n $over --map-by :OVERSUBSCRIBE --bind-to core:overload-allowed,report sh -c "$show"
expect_status overload_ok 0
[ "$(cpus overload_ok | sort -u | wc -l)" = "$cores" ] && pass ":overload-allowed binds them anyway, one core each" ||
    fail "overload-allowed: $(cpus overload_ok | tr '\n' ' ')"
expect_line overload_ok err "Rank 0 bound to core 0"

# A level this node lacks, if it lacks one (a VM may show no L3 cache or NUMA node): refused, naming
# node and level, unless :if-supported. Levels it has bind.
missing=
for level in l3cache l2cache l1cache numa package; do
    run "probe_$level" "$PRUN" -n 1 --bind-to "$level" sh -c "$show"
    if [ "$(status_of "probe_$level")" = 0 ]; then
        [ "$(cpus "probe_$level" | wc -l)" = 1 ] && pass "--bind-to $level runs bound" || fail "--bind-to $level: no CPU list"
    elif grep -q "cannot bind to $level on node [^ ]*: hwloc finds no $level there" "$TEST_TMP/probe_$level.err"; then
        pass "--bind-to $level on a node without one is refused, naming node and level"
        missing=$level
    else
        fail "--bind-to $level: $(cat "$TEST_TMP/probe_$level.err")"
    fi
done
if [ -n "$missing" ]; then
    run lacks_ok "$PRUN" -n 1 --bind-to "$missing:if-supported" sh -c "$show"
    expect_status lacks_ok 0
fi

run bad_level "$PRUN" -n 1 --bind-to l4cache true
expect_status bad_level 2
expect_line bad_level err "unknown level 'l4cache' (none, hwthread, core, l1cache, l2cache, l3cache, numa, package)"
run bad_qualifier "$PRUN" -n 1 --bind-to core:sometimes true
expect_status bad_qualifier 2
expect_line bad_qualifier err "unknown qualifier 'sometimes' (overload-allowed, if-supported, report)"
run bad_mapping "$PRUN" -n 1 --map-by slot:FOO true
expect_status bad_mapping 2
expect_line bad_mapping err "unknown qualifier 'FOO'"
run not_yet "$PRUN" -n 1 --map-by slot:PE=2 true
expect_status not_yet 2
expect_line not_yet err "PRRTE's qualifier 'PE=2' is not supported by this DVM yet"

stop_dvm
finish
