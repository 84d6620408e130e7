#!/bin/sh
# Issue 27, item 9: hostile or broken peers. A flood of connections that never authenticate cannot
# take the master's descriptors: under a low descriptor limit (ulimit -n 64) the connections still
# authenticating are capped (rml_max_authenticating, by default a quarter of the limit) and the
# DVM runs a job in the middle of the flood, which is not a flood of lines in its log either. With the cap set above the limit, accept() runs out
# of descriptors: the master stops accepting for a while instead of spinning, says so in one line
# however long it lasts, and serves a job once the flood is gone.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

# prte under ulimit -n 64 (exec keeps the pid start_dvm_foreground records).
real_prte=$PRTE
printf '#!/bin/sh\nulimit -n 64 || exit 1\nexec "%s" "$@"\n' "$real_prte" >"$TEST_TMP/prte-64"
chmod +x "$TEST_TMP/prte-64"
PRTE="$TEST_TMP/prte-64"

# flood NAME N: N connections to the master's messenger that send nothing, held open until
# `stop_running NAME` (bash's /dev/tcp; the listen backlog, 128, takes them all even while the
# master does not accept). Prints "NAME: N open" once they are.
flood() {
    bash -c 'port=$1; i=0
        while [ $i -lt "$2" ] && exec {fd}<>"/dev/tcp/127.0.0.1/$port"; do i=$((i + 1)); done
        echo "$3: $i open"
        until [ -e "$4" ]; do sleep 0.1; done' flood "$(daemon_port 0)" "$2" "$1" "$TEST_TMP/stop.$1" \
        >"$TEST_TMP/$1.out" 2>&1 &
    FLOOD_PID=$!
    wait_for_lines "$TEST_TMP/$1.out" "open" 1 300
}
CANNOT_ACCEPT="daemon 0: cannot accept connections: Too many open files"

# 1. The default cap: a quarter of 64.
start_local_nodes_dvm 1 2 --prtemca rml_base_verbose 5
flood capped 100
expect_line capped out "capped: 100 open"
wait_for_line "$TEST_TMP/prte.err" "connections are already waiting to authenticate; the oldest gives way" &&
    pass "past the cap, the oldest stranger gives way" || fail "no stranger was turned away"
listed=$(grep -c "warning: daemon 0: rejected" "$TEST_TMP/prte.err")
[ "$listed" -le 10 ] && grep -q "connections turned away within a minute; further ones this minute are counted" \
    "$TEST_TMP/prte.err" && pass "not a line per connection: $listed listed, the rest counted" ||
    fail "$listed connections turned away listed one by one"
run during "$PRUN" -n 1 --host node1 hostname
expect_status during 0
[ "$(ls /proc/"$DVM_PID"/fd | wc -l)" -lt 64 ] && pass "the master has descriptors to spare" ||
    fail "the master holds $(ls /proc/"$DVM_PID"/fd | wc -l) descriptors"
grep -q "Too many open files" "$TEST_TMP/prte.err" && fail "the master ran out of descriptors under the cap" ||
    pass "accept never ran out of descriptors"
stop_running capped
wait "$FLOOD_PID"
stop_dvm

# 2. A cap above the limit: accept runs out of descriptors.
start_local_nodes_dvm 1 2 --prtemca rml_base_verbose 5 --prtemca rml_max_authenticating 1000
flood exhausted 100
expect_line exhausted out "exhausted: 100 open"
wait_for_line "$TEST_TMP/prte.err" "$CANNOT_ACCEPT" && pass "the master says it cannot accept" ||
    fail "no word of the failing accept"
# Still out of descriptors a pause later: it failed again, quietly.
wait_for_line "$TEST_TMP/prte.err" "rml: accept failed again (Too many open files): pause 2 for 1 s" &&
    pass "accept failed again after a pause, and said so only at rml_base_verbose 1" ||
    fail "no second pause: $(grep -c 'accept' "$TEST_TMP/prte.err") accept lines"
stop_running exhausted
wait "$FLOOD_PID"
# Once the flood's connections are gone (closed by it, so the master reads their end and closes
# its side), a job runs.
t=0; while [ "$(ls /proc/"$DVM_PID"/fd | wc -l)" -ge 40 ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
run after "$PRUN" -n 1 --host node1 hostname
expect_status after 0
[ "$(grep -c "$CANNOT_ACCEPT" "$TEST_TMP/prte.err")" -eq 1 ] && pass "said once" ||
    fail "said $(grep -c "$CANNOT_ACCEPT" "$TEST_TMP/prte.err") times"
pauses=$(grep -c "rml: accept failed again" "$TEST_TMP/prte.err")
[ "$pauses" -lt 60 ] && pass "no spinning: $((pauses + 1)) pause(s) in all" || fail "$pauses pauses: it spun"
stop_dvm
finish
