# The component loader with real shared objects: selection lists, priorities, and every kind of
# broken file a component directory can hold. Each is a clear one-line message, never a crash.
. "$(dirname "$0")/lib.sh"

builtin="$PRTE_BUILDDIR/.libs"
good="$PRTE_BUILDDIR/test/components/good/.libs"
bad="$PRTE_BUILDDIR/test/components/bad/.libs"
wrongtype="$PRTE_BUILDDIR/test/components/wrongtype/.libs"
garbage="$TEST_TMP/garbage"
mkdir -p "$garbage"
echo "this is not an ELF file" >"$garbage/mca_ras_garbage.so"
head -c 4096 /dev/urandom >"$garbage/mca_rmaps_random.so"

export PRTE_MCA_mca_base_component_path="$good:$builtin"

run list "$PRTE_INFO" --parsable
expect_status list 0
expect_line list out "mca:ras:goodtest:version:9.8.7"
expect_line list out "mca:ras:goodtest:path:$good/mca_ras_goodtest.so"
expect_line list out "mca:ras:hosts:path:$builtin/mca_ras_hosts.so"
expect_line list out "mca:rmaps:round_robin:interface:3"

run version "$PRTE_INFO" --version --parsable
expect_status version 0
expect_line version out "version:pmix:"
if grep -qx 'config:dvm_completion_events:\(yes\|no\)' "$TEST_TMP/version.out"; then pass "version reports the DVM events"; else fail "no config:dvm_completion_events line"; fi

run human "$PRTE_INFO"
expect_status human 0
for fw in state plm ras rmaps errmgr grpcomm; do expect_line human out "MCA $fw ("; done

# Priority order, include list, exclude list. ras/slurm (25) is there only in a build with libslurm.
slurm=
"$PRTE_INFO" --version --parsable | grep -qx 'config:slurm:yes' && slurm="slurm "
run selected "$PRTE_INFO" --selected --parsable
expect_status selected 0
if [ "$(grep '^selected:ras:' "$TEST_TMP/selected.out" | cut -d: -f3 | tr '\n' ' ')" = "goodtest ${slurm}ssh hosts " ]; then
    pass "multi-select ras keeps both, higher priority first"
else fail "ras selection order: $(grep '^selected:ras:' "$TEST_TMP/selected.out" | tr '\n' ' ')"; fi

run include "$PRTE_INFO" --selected --parsable --prtemca ras goodtest
expect_status include 0
expect_line include out "selected:ras:goodtest:30"
expect_no_line include out "selected:ras:hosts:"

run exclude "$PRTE_INFO" --selected --parsable --prtemca ras ^goodtest
expect_status exclude 0
expect_line exclude out "selected:ras:hosts:10"
expect_no_line exclude out "selected:ras:goodtest:"

run priority "$PRTE_INFO" --selected --parsable --prtemca ras_goodtest_priority 5
if [ "$(grep '^selected:ras:' "$TEST_TMP/priority.out" | cut -d: -f3 | tr '\n' ' ')" = "${slurm}ssh hosts goodtest " ]; then
    pass "a component's priority parameter reorders selection"
else fail "priority order: $(grep '^selected:ras:' "$TEST_TMP/priority.out" | tr '\n' ' ')"; fi

run unknown "$PRTE_INFO" --selected --prtemca ras nosuch
expect_status unknown 1
expect_line unknown err "prte_info: error: unknown ras component 'nosuch' in parameter ras (from command line --prtemca ras); available: goodtest, hosts"
expect_one_line_errors unknown

PRTE_MCA_ras=^nosuch run unknown_env "$PRTE_INFO"
expect_status unknown_env 1
expect_line unknown_env err "unknown ras component 'nosuch' in parameter ras (from environment PRTE_MCA_ras)"

run mixed "$PRTE_INFO" --prtemca ras goodtest,^hosts
expect_status mixed 1
expect_line mixed err "'^' may only start the list"

run exclude_all "$PRTE_INFO" --selected --prtemca ras "^goodtest,hosts,ssh${slurm:+,slurm}"
expect_status exclude_all 1
expect_line exclude_all err "prte_info: error: no ras component is available"

# Broken files: each refused with the file and the reason; the good ones still load.
PRTE_MCA_mca_base_component_path="$bad:$garbage:$builtin" run broken "$PRTE_INFO" --parsable
expect_status broken 1
expect_line broken err "component ras oldiface ($bad/mca_ras_oldiface.so) refused: built for ras interface version 999, this prte provides version 6"
fp=$("$PRTE_INFO" --version --parsable | sed -n 's/^config:runtime_types://p')
[ -n "$fp" ] && pass "prte_info reports the runtime-types fingerprint" || fail "no config:runtime_types line"
expect_line broken err "component ras oldtypes ($bad/mca_ras_oldtypes.so) refused: built against runtime types 0123456789abcdef, this prte's are $fp: rebuild it against this prte's headers"
expect_line broken out "failed:ras:oldtypes:$bad/mca_ras_oldtypes.so:built against runtime types 0123456789abcdef"
expect_line broken err "component ras nodescriptor ($bad/mca_ras_nodescriptor.so) refused: not a prte component: it exports no prte_mca_component_descriptor() function"
expect_line broken err "component ras misnamed ($bad/mca_ras_misnamed.so) refused: its descriptor names ras othername, which does not match its file name"
expect_line broken err "component ras garbage ($garbage/mca_ras_garbage.so) refused: not a shared object (no ELF header)"
expect_line broken err "component rmaps random ($garbage/mca_rmaps_random.so) refused: not a shared object (no ELF header)"
expect_line broken out "mca:ras:hosts:version:1.0.0"
expect_line broken out "failed:ras:oldiface:$bad/mca_ras_oldiface.so:built for ras interface version 999"
expect_one_line_errors broken

# prte_info --selected lists what is there but not in play, with the reason.
PRTE_MCA_mca_base_component_path="$garbage:$builtin" run selected_refused "$PRTE_INFO" --selected --parsable
expect_line selected_refused out "unavailable:ras:garbage:not a shared object (no ELF header)"

# A program that starts a DVM warns once per refused file (issue 31, item 2: it used to say nothing).
PRTE_MCA_mca_base_component_path="$garbage:$builtin" run prterun_refused \
    "$PRTE_BUILDDIR/src/tools/prterun/prterun" -n 1 /bin/true
expect_status prterun_refused 0
n=$(grep -c "prte: warning: component ras garbage ($garbage/mca_ras_garbage.so) refused: not a shared object" \
    "$TEST_TMP/prterun_refused.err")
[ "$n" = 1 ] && pass "prte warns once about the refused file" || fail "prte warned $n times: $(cat "$TEST_TMP/prterun_refused.err")"
PRTE_MCA_mca_base_component_path="$garbage:$builtin" PRTE_MCA_mca_base_component_show_load_errors=0 \
    run prterun_quiet "$PRTE_BUILDDIR/src/tools/prterun/prterun" -n 1 /bin/true
expect_no_line prterun_quiet err "refused"

# Asking for a refused component by name is an error that says why.
PRTE_MCA_mca_base_component_path="$bad:$builtin" run want_broken "$PRTE_INFO" --selected --prtemca ras oldiface
expect_status want_broken 1
expect_line want_broken err "prte_info: error: component ras oldiface ($bad/mca_ras_oldiface.so) refused: built for ras interface version 999"

# A module of the wrong type is refused at selection, the rest still selected.
PRTE_MCA_mca_base_component_path="$wrongtype:$builtin" run wrong "$PRTE_INFO" --selected --parsable
expect_status wrong 0
expect_line wrong err "component wrongtype ($wrongtype/mca_ras_wrongtype.so) refused: its module is not a ras module"
expect_line wrong out "selected:ras:hosts:10"
expect_no_line wrong out "selected:ras:wrongtype"

# A directory that does not exist in the path is fine; the first directory holding a name wins.
PRTE_MCA_mca_base_component_path="/nonexistent:$good:$builtin" run shadow "$PRTE_INFO" --parsable
expect_status shadow 0
expect_line shadow out "mca:ras:goodtest:path:$good/mca_ras_goodtest.so"

finish
