#!/bin/sh
# Issue 13 item 1: a PMIx event raised by a process reaches every process its range names, on any
# node, exactly once, and none outside it. 4 local nodes (rml_radix 2); for each range a listener
# job (4 ranks, one per node) waits, then a sender job (8 ranks, --map-by node, so rank r is on
# node (r mod 4)+1) has rank 0 notify a test event; every rank but the sender prints how many it
# got (test/clients/evcount).
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"
CLIENTS="$PRTE_BUILDDIR/test/clients"

start_local_nodes_dvm 4 2 --prtemca pmix_server_verbose 5

# check_range RANGE "SENDER_COUNTS" "LISTENER_COUNTS" [--custom LIST]: the counts of sender ranks
# 1..7 and of listener ranks 0..3, in rank order.
# Each check uses its own event codes (--code): PMIx servers keep events for late registrants.
code=0
check_range() {
    range=$1
    want_sender=$2
    want_listener=$3
    shift 3
    code=$((code + 1))
    "$PRUN" -n 4 --map-by node:OVERSUBSCRIBE "$CLIENTS/evcount" --code $code >"$TEST_TMP/listen_$range.out" 2>"$TEST_TMP/listen_$range.err" &
    listener=$!
    t=0
    while [ "$(grep -c '^evcount ready' "$TEST_TMP/listen_$range.out")" -lt 4 ] && [ $t -lt 300 ]; do
        sleep 0.1
        t=$((t + 1))
    done
    run "send_$range" timeout 60 "$PRUN" -n 8 --map-by node:OVERSUBSCRIBE "$CLIENTS/evcount" --code $code --send "$range" "$@"
    wait "$listener"
    listen_status=$?
    got_sender=$(for r in 1 2 3 4 5 6 7; do
        sed -n "s/^evcount rank $r job .* got \([0-9]*\)$/\1/p" "$TEST_TMP/send_$range.out"; done | tr '\n' ' ')
    got_listener=$(for r in 0 1 2 3; do
        sed -n "s/^evcount rank $r job .* got \([0-9]*\)$/\1/p" "$TEST_TMP/listen_$range.out"; done | tr '\n' ' ')
    if [ "$(status_of "send_$range")" = 0 ] && [ $listen_status = 0 ] && [ "$got_sender" = "$want_sender " ] &&
        [ "$got_listener" = "$want_listener " ]; then
        pass "range $range: sender job got [$got_sender], listener job [$got_listener]"
    else
        fail "range $range: sender job (exit $(status_of "send_$range")) got [$got_sender], expected [$want_sender];" \
            "listener job (exit $listen_status) got [$got_listener], expected [$want_listener]"
        sed 's/^/    /' "$TEST_TMP/send_$range.out" "$TEST_TMP/send_$range.err" "$TEST_TMP/listen_$range.out" \
            "$TEST_TMP/listen_$range.err"
    fi
}

#           range       sender ranks 1..7   listener ranks 0..3
# PMIx 4.2.2 itself hands the event to every process of the sender's node that registered for it,
# whatever its namespace (listener rank 0); the DVM relays it to the sender's namespace only.
check_range namespace   "1 1 1 1 1 1 1"     "1 0 0 0"
check_range session     "1 1 1 1 1 1 1"     "1 1 1 1"
check_range global      "1 1 1 1 1 1 1"     "1 1 1 1"
# Only node1's processes: sender rank 4 and listener rank 0.
check_range local       "0 0 0 1 0 0 0"     "1 0 0 0"
check_range proc_local  "0 0 0 0 0 0 0"     "0 0 0 0"
# Ranks 1, 2 and 6 of the sender's job, on nodes 2, 3 and 3.
check_range custom      "1 1 0 0 0 1 0"     "0 0 0 0" --custom 1,2,6
# PMIX_RANGE_RM names the resource manager, not processes: no process gets it.
check_range rm          "0 0 0 0 0 0 0"     "0 0 0 0"
finish
