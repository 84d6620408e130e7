#!/bin/sh
# A failing rank is restarted (prun --max-restarts N, --runtime-options autorestart,max-restarts=N,
# --continuous): the same rank, on its node, started again by its daemon, up to N times; the failure
# after the last restart ends the job with that rank's status. On a DVM of 2 local nodes, one rank
# on each (so both the master's odls and a daemon's restart one): each rank exits 3 in its first
# two lives (a counter file per rank and run) and 0 in its third.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 2 1

# The program: counts its lives in $TEST_TMP/lives.RUN.RANK, says which and where, and fails in
# the first two.
flaky() {
    echo "f=$TEST_TMP/lives.$1.\$PMIX_RANK; n=\$((\$(cat \$f 2>/dev/null || echo 0) + 1)); echo \$n >\$f
        echo \"rank \$PMIX_RANK life \$n on \$PRTE_NODE_NAME\"; [ \$n -gt 2 ] || exit 3"
}

# lives RUN RANK: how many times the rank was started in that run.
lives() { cat "$TEST_TMP/lives.$1.$2" 2>/dev/null || echo 0; }

# expect_restarts RUN: each rank ran 3 lives, all on the node of its first.
expect_restarts() {
    for rank in 0 1; do
        [ "$(lives "$1" $rank)" = 3 ] && pass "$1: rank $rank ran 3 times" ||
            fail "$1: rank $rank ran $(lives "$1" $rank) times, expected 3"
        nodes=$(sed -n "s/^rank $rank life [0-9]* on //p" "$TEST_TMP/$1.out" | sort -u | wc -l)
        [ "$nodes" = 1 ] && pass "$1: rank $rank restarted on its node" ||
            fail "$1: rank $rank ran on $nodes nodes: $(grep "^rank $rank " "$TEST_TMP/$1.out" | tr '\n' ' ')"
    done
}

# --max-restarts 2: two restarts each, then the third life succeeds, and so does the job.
run enough "$PRUN" -n 2 --map-by node --max-restarts 2 sh -c "$(flaky enough)"
expect_status enough 0
expect_restarts enough
expect_line enough out "rank 1 life 3 on "

# The same through --runtime-options, as PRRTE spells it.
run rtos "$PRUN" -n 2 --map-by node --runtime-options autorestart,max-restarts=2 sh -c "$(flaky rtos)"
expect_status rtos 0
expect_restarts rtos

# --max-restarts 1: the second failure ends the job with the rank's status.
run too_few "$PRUN" -n 2 --map-by node --max-restarts 1 sh -c "$(flaky too_few)"
expect_status too_few 3
expect_line too_few err "exited with status 3"
for rank in 0 1; do
    [ "$(lives too_few $rank)" -le 2 ] || fail "too_few: rank $rank was started $(lives too_few $rank) times (at most 2)"
done

# --continuous: without limit.
run continuous "$PRUN" -n 2 --map-by node --continuous sh -c "$(flaky continuous)"
expect_status continuous 0
expect_restarts continuous

# autorestart with no limit is a usage error naming what to add.
run no_limit "$PRUN" -n 1 --runtime-options autorestart true
expect_status no_limit 2
expect_line no_limit err "max-restarts=N"

finish
