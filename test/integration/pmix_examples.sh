#!/bin/sh
# Issue 26 item 3: OpenPMIx's own example programs (examples/ of Debian's pmix source, fetched by
# contrib/fetch-pmix-examples.sh from contrib/install-deps.sh), programs we did not write, run under
# prun on one node and across 4 local nodes. Each must end as the standard and PRRTE make it end:
# its status, every rank finalizing, and none of the example's own failure lines ("... failed").
# What each example does and the two that cannot end by design: docs/user-guide.md, "OpenPMIx's
# example programs".
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
EXAMPLES=${PRTE_PMIX_EXAMPLES:-$PRTE_SRCDIR/_deps/pmix-examples}
if [ ! -f "$EXAMPLES/hello.c" ]; then
    fail "OpenPMIx's examples are not in $EXAMPLES: run sh contrib/fetch-pmix-examples.sh (contrib/install-deps.sh does)"
    finish
fi

# Built here, against the libpmix prte uses, as OpenPMIx's examples/Makefile.am builds them.
BIN="$TEST_TMP/bin"
mkdir -p "$BIN"
# shellcheck disable=SC2046
for ex in hello client client2 pub pubi dynamic group asyncgroup group_dmodex group_lcl_cid log jctrl \
    nodeinfo dmodex bad_exit fault tool; do
    cc -O1 -I"$EXAMPLES" $(pkg-config --cflags pmix) -o "$BIN/$ex" "$EXAMPLES/$ex.c" $(pkg-config --libs pmix) \
        -lpthread >"$TEST_TMP/cc.$ex" 2>&1 || fail "cannot build $ex: $(head -5 "$TEST_TMP/cc.$ex")"
done

# example <where> <name> <np> <status> <finalized> [<allowed>]: runs it under prun (with $OPTS),
# checks its status, that <finalized> ranks said they finalized, and that it printed none of its
# failure lines but those matching the extended regex <allowed> (answers PRRTE gives too).
example() {
    where=$1 ex=$2 np=$3 want=$4 finals=$5 allowed=${6:-^$}
    # shellcheck disable=SC2086
    run "${where}_$ex" "$PRUN" --timeout 60 -n "$np" $OPTS "$BIN/$ex"
    expect_status "${where}_$ex" "$want"
    done_ranks=$(grep -c "PMIx_Finalize successfully completed\|COMPLETE$" "$TEST_TMP/${where}_$ex.err")
    if [ "$done_ranks" -ge "$finals" ]; then pass "$where: $ex: $finals rank(s) finalized"; else
        fail "$where: $ex: $done_ranks rank(s) finalized, not $finals"
        tail -20 "$TEST_TMP/${where}_$ex.err" | sed 's/^/    /'
    fi
    if grep -i "failed\|error" "$TEST_TMP/${where}_$ex.err" | grep -v "^prun: error: rank 0 of job .* exited with status 1$" |
        grep -Ev -- "$allowed" >"$TEST_TMP/${where}_$ex.bad"; then
        fail "$where: $ex printed a failure: $(head -3 "$TEST_TMP/${where}_$ex.bad")"
    fi
}

all_examples() {
    where=$1
    example "$where" hello 4 0 4
    example "$where" client 2 0 2
    example "$where" client2 2 0 2
    example "$where" pub 3 0 3
    example "$where" pubi 3 0 3
    # dynamic spawns "client" from the working directory: run there, the children run too, and a
    # child that failed would give prun its status (PMIx's default for PMIX_REPORT_CHILD_SEP).
    cd "$BIN"
    example "$where" dynamic 2 0 2
    cd - >/dev/null
    # Each group example constructs "ourgroup" in a new job: a record PMIx 4.2.2 kept from an
    # earlier job's group on any node made a later construct of that id wait for ever there.
    example "$where" group 4 0 4
    example "$where" asyncgroup 4 0 4
    example "$where" group_dmodex 4 0 4
    example "$where" group_lcl_cid 4 0 4
    example "$where" group_dmodex 4 0 4
    example "$where" log 2 0 2
    expect_line "${where}_log" err "stderr log message"
    # Preemption and checkpointing are not something the DVM does: PMIX_ERR_NOT_SUPPORTED, as PRRTE.
    example "$where" jctrl 2 0 2 "PMIx_Job_control_nb failed: -47$"
    # No fabric coordinates without a fabric component (PRRTE's pnet): NOT-FOUND, as PRRTE.
    example "$where" nodeinfo 2 0 2 "PMIx_Get coordinates .*failed: NOT-FOUND$"
    # Only rank 0 reports.
    example "$where" dmodex 2 0 1
    # Rank 0 exits 1 on purpose: the job ends with its status, named in prun's line (as under PRRTE).
    example "$where" bad_exit 2 1 0
    expect_line "${where}_bad_exit" err "rank 0 of job"
    # Rank 0 exits 1 while the others wait for the job's end: without recovery the job ends at once.
    example "$where" fault 2 1 0 "rank 0: exiting with error$"
}

OPTS=
start_dvm --host localhost:8
all_examples one_node

# tool: a PMIx tool that connects by URI and asks for every job's namespace and command line
# (PMIX_QUERY_NAMESPACE_INFO), then for a node's PMIx server URI (PMIX_SERVER_URI, PMIX_HOSTNAME).
uri=$(sed -n 's/^uri=//p' "$TEST_TMP/prte.$(id -u)/dvm.$DVM_PID")
"$PRUN" -n 1 sh -c "while [ ! -e '$TEST_TMP/stop' ]; do sleep 0.1; done" >/dev/null 2>&1 &
bystander=$!
t=0
while :; do
    "$BIN/tool" --url "$uri" >"$TEST_TMP/tool.out" 2>&1
    if grep -q "^	prte-.*@[0-9]*	sh -c while" "$TEST_TMP/tool.out" || [ $t -ge 100 ]; then break; fi
    sleep 0.1
    t=$((t + 1))
done
grep -q "^ACTIVE NSPACES:" "$TEST_TMP/tool.out" && grep -q "^	prte-.*@[0-9]*	sh -c while" "$TEST_TMP/tool.out" &&
    pass "tool lists the running job's namespace and command line" || fail "tool: $(cat "$TEST_TMP/tool.out")"
touch "$TEST_TMP/stop"
wait "$bystander"
node=$(hostname)
"$BIN/tool" --url "$uri" --uri "$node" >"$TEST_TMP/tool_uri.out" 2>&1
grep -qF "PMIx server URI for node $node: $uri" "$TEST_TMP/tool_uri.out" && pass "tool reads this node's PMIx server URI" ||
    fail "tool --uri: $(cat "$TEST_TMP/tool_uri.out")"
stop_dvm

# Every rank on a node of its own where the job has as many (a group's members on different nodes).
OPTS="--map-by node"
start_local_nodes_dvm 4 2
all_examples four_nodes
stop_dvm
finish
