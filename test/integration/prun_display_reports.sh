#!/bin/sh
# prun --display map / allocation and --report-bindings on a DVM of 4 local nodes: what the user
# sees. The DVM's map and allocation come on prun's stdout before any output of the job, untagged
# even with --output tag; each rank reports its binding once, on its own stderr; a bad --display
# value is a one-line usage error; --display cpus lists a node's CPUs by package; prterun shows the map of its own DVM, which got --host
# however it was spelled.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 4 2 --prtemca prte_set_slots 2

# --- --display map: the banner first, then one node section per node used, each rank listed ---
run map "$PRUN" --display map --map-by node -n 4 --output tag echo ran
expect_status map 0
first=$(head -1 "$TEST_TMP/map.out")
case "$first" in
*"JOB MAP"*) pass "the map is the first thing on stdout" ;;
*) fail "stdout starts with '$first', not the map"; sed 's/^/    /' "$TEST_TMP/map.out" ;;
esac
map_end=$(grep -n '^=*$' "$TEST_TMP/map.out" | tail -1 | cut -d: -f1)
first_output=$(grep -n 'ran$' "$TEST_TMP/map.out" | head -1 | cut -d: -f1)
if [ -n "$map_end" ] && [ -n "$first_output" ] && [ "$map_end" -lt "$first_output" ]; then
    pass "the map ends (line $map_end) before the job's first output (line $first_output)"
else
    fail "the map does not come before the job's output"
    sed 's/^/    /' "$TEST_TMP/map.out"
fi
for i in 1 2 3 4; do
    n=$(grep -c "^Data for node: node$i[[:space:]].*Num procs: 1$" "$TEST_TMP/map.out")
    [ "$n" = 1 ] && pass "the map has node$i with one process" || fail "node$i section: $n match(es)"
done
for r in 0 1 2 3; do
    expect_line map out "Process rank: $r "
done
expect_line map out "Mapping policy: NODE"
expect_no_line map out "]<stdout>: ===="  # the DVM's report is not tagged as a rank's output
[ "$(grep -c '<stdout>: ran$' "$TEST_TMP/map.out")" = 4 ] && pass "the job's own output is still tagged" ||
    fail "tagged output: $(cat "$TEST_TMP/map.out")"

# --- --display allocation: every node of the DVM with its slots, before the job runs ---
run alloc "$PRUN" --display allocation -n 1 echo ran
expect_status alloc 0
expect_line alloc out "ALLOCATED NODES"
for i in 1 2 3 4; do expect_line alloc out "node$i: slots=2 max_slots=0"; done
expect_no_line alloc out "JOB MAP"
[ "$(tail -1 "$TEST_TMP/alloc.out")" = "ran" ] && pass "the job's output follows the allocation" ||
    fail "last line is not the job's output: $(cat "$TEST_TMP/alloc.out")"

# --- --display cpus=<node>: that node's available CPUs by package, before the job's output ---
run cpus "$PRUN" --display cpus=node2 -n 1 echo ran
expect_status cpus 0
expect_line cpus out "======================   AVAILABLE PROCESSORS [node: node2]   ======================"
expect_no_line cpus out "[node: node1]"
grep -qE '^PKG\[0\]: ([0-9]+(-[0-9]+)?)(,[0-9]+(-[0-9]+)?)*$' "$TEST_TMP/cpus.out" && pass "--display cpus lists package 0's CPUs" ||
    fail "--display cpus: $(cat "$TEST_TMP/cpus.out")"
[ "$(tail -1 "$TEST_TMP/cpus.out")" = "ran" ] && pass "the job's output follows the CPU report" ||
    fail "last line is not the job's output: $(cat "$TEST_TMP/cpus.out")"
run cpus_all "$PRUN" --display cpus -n 1 true
[ "$(grep -c 'AVAILABLE PROCESSORS \[node: node[1-4]\]' "$TEST_TMP/cpus_all.out")" = 4 ] && pass "--display cpus: every node" ||
    fail "--display cpus (all): $(cat "$TEST_TMP/cpus_all.out")"

# --- without --display the DVM reports nothing ---
run quiet "$PRUN" -n 1 echo ran
expect_no_line quiet out "JOB MAP"
expect_no_line quiet out "ALLOCATED NODES"

# --- --report-bindings: one line per rank, on that rank's stderr, naming its node and binding ---
run bound "$PRUN" --report-bindings --bind-to core --map-by node -n 4 --output tag true
expect_status bound 0
for r in 0 1 2 3; do
    node=node$((r + 1))
    n=$(grep -c "^\[[0-9]*,$r\]<stderr>: \[$node\] Rank $r bound to core " "$TEST_TMP/bound.err")
    [ "$n" = 1 ] && pass "rank $r reports its core binding on $node once" ||
        { fail "rank $r binding lines: $n"; sed 's/^/    /' "$TEST_TMP/bound.err"; }
done
run unbound "$PRUN" --display bind --bind-to none -n 2 true
expect_status unbound 0
[ "$(grep -c 'Rank [01] is not bound' "$TEST_TMP/unbound.err")" = 2 ] && pass "--display bind: two unbound ranks say so" ||
    fail "unbound report: $(cat "$TEST_TMP/unbound.err")"
run nobind "$PRUN" --bind-to core -n 2 true
expect_no_line nobind err "bound to"

# --- with --output xml (--xml) the reports are XML elements: the whole output is one XML document ---
run xml "$PRUN" --xml --display map,allocation,cpus=node1,topo=node2 --map-by node -n 4 echo 'ran <&>'
expect_status xml 0
if python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.stdin)' <"$TEST_TMP/xml.out" 2>"$TEST_TMP/xml.parse"; then
    pass "--xml --display map,allocation,cpus,topo: the whole output parses as XML"
else
    fail "the output is not well-formed XML: $(cat "$TEST_TMP/xml.parse")"
    sed 's/^/    /' "$TEST_TMP/xml.out"
fi
# The parsed document: each rank under the host it was mapped to, every node in the allocation,
# node1's packages and node2's topology as elements, and the output still escaped.
python3 - "$TEST_TMP/xml.out" >"$TEST_TMP/xml.facts" 2>&1 <<'PY'
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
for host in doc.getElementsByTagName("map")[0].getElementsByTagName("host"):
    for proc in host.getElementsByTagName("process"):
        print("map", host.getAttribute("name"), "rank", proc.getAttribute("rank"))
for host in doc.getElementsByTagName("allocation")[0].getElementsByTagName("host"):
    print("allocated", host.getAttribute("name"), "slots", host.getAttribute("slots"))
for p in doc.getElementsByTagName("processors"):
    print("processors", p.getAttribute("node"), "packages", len(p.getElementsByTagName("package")))
for t in doc.getElementsByTagName("topology"):
    print("topology", t.getAttribute("node"), "objects", len(t.getElementsByTagName("object")) > 0)
for o in doc.getElementsByTagName("stdout"):
    print("stdout", "".join(n.data for n in o.childNodes).strip())
PY
for r in 0 1 2 3; do
    grep -qx "map node$((r + 1)) rank $r" "$TEST_TMP/xml.facts" && pass "the XML map has rank $r on node$((r + 1))" ||
        { fail "the XML map lacks rank $r on node$((r + 1))"; sed 's/^/    /' "$TEST_TMP/xml.facts"; }
done
for i in 1 2 3 4; do expect_line xml facts "allocated node$i slots 2"; done
grep -qE '^processors node1 packages [1-9]' "$TEST_TMP/xml.facts" && pass "node1's CPUs by package as elements" ||
    fail "no <processors node=\"node1\"> with packages: $(cat "$TEST_TMP/xml.facts")"
expect_line xml facts "topology node2 objects True"
[ "$(grep -c '^stdout ran <&>$' "$TEST_TMP/xml.facts")" = 4 ] && pass "each rank's output is an escaped <stdout> element" ||
    fail "stdout elements: $(grep stdout "$TEST_TMP/xml.facts")"

# --- a --display value we do not offer is a usage error naming it ---
run bad "$PRUN" --display map,no-such-report -n 1 true
expect_status bad 2
expect_one_line_errors bad
expect_line bad err "unknown or unsupported report 'no-such-report'"

stop_dvm

# --- prterun: the map of its own one-job DVM, and options after --display still reach prte ---
PRTERUN="$PRTE_BUILDDIR/src/tools/prterun/prterun"
run prterun "$PRTERUN" --display map --host "$(hostname):3" -n 3 echo ran
expect_status prterun 0
expect_line prterun out "Num slots: 3"
[ "$(grep -c '^ran$' "$TEST_TMP/prterun.out")" = 3 ] && pass "prterun ran 3 ranks" || fail "prterun: $(cat "$TEST_TMP/prterun.out")"
run prterun_eq "$PRTERUN" -n 1 --host="$(hostname):5" --display=map echo ran
expect_status prterun_eq 0
expect_line prterun_eq out "Num slots: 5"

finish
