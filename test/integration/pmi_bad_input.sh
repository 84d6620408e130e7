#!/bin/sh
# Bad PMI input from a process ends its job with one message naming the rank and the command, and
# the daemon serving it carries on: malformed, out of order, a value too long, an abort whose
# exitcode is not a number, a get of a key
# nobody put; then a fuzz of commands mutated at random (each job either runs or ends with such a
# message, never hangs, never takes a daemon down). On 2 local nodes, so that a remote daemon's
# server is fuzzed too.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
FUZZ="$PRTE_BUILDDIR/test/clients/pmi_fuzz"

start_local_nodes_dvm 2 2

# bad MODE MESSAGE: both ranks (one per node) misbehave; the job ends with status 1 and one message.
bad() {
    name=$(echo "$1" | tr - _)
    run "$name" "$PRUN" -n 2 --map-by node --timeout 30 "$FUZZ" "$1"
    expect_status "$name" 1
    expect_line "$name" err "$2"
    n=$(grep -c 'prun: error: rank ' "$TEST_TMP/$name.err")
    [ "$n" = 1 ] && pass "$1: one message" || fail "$1: $n messages: $(cat "$TEST_TMP/$name.err")"
}
bad malformed "malformed PMI command after 'init': 'this' is not key=value"
bad before-init "PMI command 'get_maxes' refused: it came before init"
bad long-value "PMI command 'put' refused: the value of key 'big' has 5000 bytes (at most 1024)"
bad missing-key "PMI command 'get' refused: key 'never_put' was never put"
# An abort whose exitcode is not a number ends the job as aborted (status 1), saying so; it was
# read as 7 (atoi), and "abc" as 0, a success.
bad bad-exitcode "called PMI abort with status 1 (its exitcode '7abc' is not a number)"

seed=1
while [ "$seed" -le 20 ]; do
    run "fuzz$seed" "$PRUN" -n 2 --map-by node --timeout 30 "$FUZZ" random "$seed" 40
    s=$(status_of "fuzz$seed")
    # Ran through, or ended by the DVM with the message (not by --timeout: a hang).
    if [ "$s" = 0 ] || grep -q "prun: error: rank .*PMI command" "$TEST_TMP/fuzz$seed.err"; then
        pass "fuzz seed $seed: exit $s"
    else
        fail "fuzz seed $seed: exit $s: $(cat "$TEST_TMP/fuzz$seed.err")"
    fi
    seed=$((seed + 1))
done

ndaemons=$(dvm_daemons | wc -l)
[ "$ndaemons" = 2 ] && pass "both daemons still running" || fail "expected 2 daemons, found $ndaemons"
run after "$PRUN" -n 2 --map-by node "$FUZZ" pmi2
expect_status after 0
expect_line after out "pmi2 rank 1 of 2 next=v0;x"

stop_dvm
finish
