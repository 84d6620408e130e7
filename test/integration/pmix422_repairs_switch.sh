#!/bin/sh
# Issue 26 item 4: the PMIx 4.2.2 repairs act only on the libpmix whose GNU build id configure
# recorded. Each daemon says at start whether they are on; a libpmix with another build id (here a
# copy of the real one with one byte of its id changed, found first through LD_LIBRARY_PATH) turns
# them off with a warning naming what is at risk; pmix_server_repairs 0 switches them off by hand;
# prte_info --parsable reports the state.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

real=$(readlink -f "$(pkg-config --variable=libdir pmix)/libpmix.so")
id=$(LC_ALL=C readelf -n "$real" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)
[ -n "$id" ] || { fail "no build id in $real"; finish; }

run info "$PRTE_INFO" --parsable
expect_line info out "config:pmix422_repairs:on"

start_local_nodes_dvm 2 2 --prtemca pmix_server_verbose 1
for who in "^\[$(hostname):[0-9]*\] " "^\[node1\] daemon 1: " "^\[node2\] daemon 2: "; do
    grep -q "${who}.*PMIx 4.2.2 repairs: on (libpmix build id $id)" "$TEST_TMP/prte.err" &&
        pass "said on by ${who}" || fail "no 'repairs: on' line from ${who}: $(grep -i repairs "$TEST_TMP/prte.err")"
done
stop_dvm

# By hand.
start_dvm_foreground --prtemca pmix_server_verbose 1 --prtemca pmix_server_repairs 0
grep -q "PMIx 4.2.2 repairs: off (switched off by pmix_server_repairs)" "$TEST_TMP/prte.err" &&
    pass "pmix_server_repairs 0 switches them off" || fail "$(grep -i repairs "$TEST_TMP/prte.err")"
grep -q "warning: PMIx 4.2.2 repairs off" "$TEST_TMP/prte.err" && fail "switched off by hand, yet a warning" ||
    pass "no warning when switched off by hand"
stop_dvm

# Another libpmix of the same version: a copy whose build id differs in one byte.
other="$TEST_TMP/otherpmix"
mkdir -p "$other"
python3 - "$real" "$other/libpmix.so.2" "$id" <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
old = bytes.fromhex(sys.argv[3])
at = data.find(old)
assert at >= 0, "build id not found in the library"
data[at] ^= 0xff
open(sys.argv[2], 'wb').write(data)
PY
other_id=$(LC_ALL=C readelf -n "$other/libpmix.so.2" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)
[ "$other_id" != "$id" ] && [ -n "$other_id" ] || fail "the copy's build id did not change ($other_id)"
LD_LIBRARY_PATH="$other${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run info_other "$PRTE_INFO" --parsable
expect_line info_other out "config:pmix422_repairs:off (the loaded libpmix ($other/libpmix.so.2, build id $other_id) is not the one they were checked against (build id $id))"
LD_LIBRARY_PATH="$other${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" start_dvm_foreground
grep -q "warning: PMIx 4.2.2 repairs off: the loaded libpmix ($other/libpmix.so.2, build id $other_id).*at risk:" \
    "$TEST_TMP/prte.err" && pass "another libpmix: off, with a warning naming what is at risk" ||
    fail "no warning with another libpmix: $(cat "$TEST_TMP/prte.err")"
run job_other "$PRUN" -n 2 /bin/true
expect_status job_other 0
stop_dvm
finish
