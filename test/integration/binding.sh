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
expect_line bad_level err "unknown level 'l4cache' (valid: none, hwthread, core, l1cache, l2cache, l3cache, numa, package)"
run bad_qualifier "$PRUN" -n 1 --bind-to core:sometimes true
expect_status bad_qualifier 2
expect_line bad_qualifier err "unknown qualifier 'sometimes' (valid: overload-allowed, if-supported, report)"
run bad_mapping "$PRUN" -n 1 --map-by slot:FOO true
expect_status bad_mapping 2
expect_line bad_mapping err "unknown qualifier 'FOO'"
run conflict "$PRUN" -n 1 --map-by slot:PE=2 --bind-to package true
expect_status conflict 2
expect_line conflict err "PE=2 binds each process to 2 core(s), which --bind-to package contradicts"

# PE=n: each process gets n cores of its own.
run pe "$PRUN" -n 1 --map-by slot:PE=2 --report-bindings sh -c "$show"
expect_status pe 0
[ "$(cpus pe)" = "$(sed -n 's/.*(cpus \(.*\))$/\1/p' "$TEST_TMP/pe.err")" ] && expect_line pe err "Rank 0 bound to cores 0-1 (cpus " ||
    fail "PE=2: process has $(cpus pe), report says $(cat "$TEST_TMP/pe.err")"
run pe_too_many "$PRUN" -n 2 --map-by slot:PE=$cores true
[ "$(status_of pe_too_many)" != 0 ] && expect_line pe_too_many err "(PE=$cores: each process needs $cores free cores of its own)" ||
    fail "2 processes of PE=$cores on $cores cores were accepted"

# pe-list: the processes are confined to the listed cores; :ORDERED gives one each in turn.
run pelist "$PRUN" -n 2 --map-by pe-list=1:ORDERED --report-bindings sh -c "$show"
expect_status pelist 0
expect_line pelist err "Rank 0 bound to core 1 (cpus "
expect_line pelist err "Rank 1 bound to core 1 (cpus "
[ "$(cpus pelist | sort -u | wc -l)" = 1 ] && pass "pe-list=1:ORDERED puts both on core 1" || fail "pe-list: $(cpus pelist | tr '\n' ' ')"

# --rank-by node on one node is rank order as mapped; an unknown policy is refused.
run rankby "$PRUN" -n 2 --rank-by slot --report-bindings true
expect_status rankby 0
run bad_rankby "$PRUN" -n 2 --rank-by diagonal true
expect_status bad_rankby 2
expect_line bad_rankby err "unknown ranking policy 'diagonal'"

# Jobs side by side in the DVM: a second job binds to the cores the first left free.
mkfifo "$TEST_TMP/hold"
"$PRUN" -n 1 sh -c "$show; cat >/dev/null" <"$TEST_TMP/hold" >"$TEST_TMP/first.out" 2>"$TEST_TMP/first.err" &
first=$!
exec 7>"$TEST_TMP/hold"
until grep -q Cpus_allowed_list "$TEST_TMP/first.out" 2>/dev/null; do kill -0 $first 2>/dev/null || break; sleep 0.05; done
run second "$PRUN" -n 1 sh -c "$show"
exec 7>&-
wait "$first"
[ -n "$(cpus first)" ] && [ "$(cpus first)" != "$(cpus second)" ] && pass "a second job binds to another core ($(cpus first), then $(cpus second))" ||
    fail "two jobs side by side: $(cpus first) and $(cpus second)"
run third "$PRUN" -n 1 sh -c "$show"
[ "$(cpus third)" = "$(cpus first)" ] && pass "the first job's core is free again once it ended" || fail "after the first job: $(cpus third)"

# What the processes are told (PMIx) agrees with the kernel: PMIX_CPUSET is Cpus_allowed_list and
# PMIX_LOCALITY_STRING is there; unbound processes are told neither.
run told "$PRUN" -n 2 "$PRTE_BUILDDIR/test/clients/locality"
expect_status told 0
for r in 0 1; do
    line=$(grep "^rank $r " "$TEST_TMP/told.out")
    set -- $line
    [ "$4" = "$6" ] && [ "$8" != none ] && pass "rank $r is told PMIX_CPUSET $4 (its Cpus_allowed_list) and a locality ($8)" ||
        fail "rank $r: $line"
done
run told_none "$PRUN" -n 2 --bind-to none "$PRTE_BUILDDIR/test/clients/locality"
expect_line told_none out "rank 0 cpuset none allowed $all locality none"

# Open MPI's own view of the same bindings (its OMPI_COMM_TYPE_CORE / _SOCKET splits read PMIx's
# locality strings): bound to cores, the two ranks share a package and not a core.
if [ -x "$PRTE_BUILDDIR/test/clients/mpi_locality" ]; then
    run ompi "$PRUN" -n 2 --bind-to core "$PRTE_BUILDDIR/test/clients/mpi_locality"
    expect_status ompi 0
    expect_line ompi out "mpi rank 0 local 0 core 1 package 2"
    expect_line ompi out "mpi rank 1 local 1 core 1 package 2"
    run ompi_none "$PRUN" -n 2 --bind-to none "$PRTE_BUILDDIR/test/clients/mpi_locality"
    expect_line ompi_none out "mpi rank 0 local 0 core 1 package 1"
else
    fail "test/clients/mpi_locality was not built (mpicc not found: apt-get install libopenmpi-dev)"
fi

stop_dvm
finish
