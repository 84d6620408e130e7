#!/bin/sh
# The prun options PRRTE and mpirun users type, on a DVM of 4 local nodes: -N n / --npernode n /
# --pernode place n (1) ranks on every node; --pmixmca name value reaches the processes as
# PMIX_MCA_<name>; the older spellings --tag-output and --timestamp-output work and print one
# note naming the current spelling. Conflicting or bad values are one-line usage errors.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 4 2 --prtemca prte_set_slots 2

# --- -N / --npernode / --pernode: ppr:n:node ---
run N2 "$PRUN" -N 2 "$JOBINFO"
expect_placement N2 "node1 node1 node2 node2 node3 node3 node4 node4"
run npernode "$PRUN" --npernode 1 "$JOBINFO"
expect_placement npernode "node1 node2 node3 node4"
run pernode "$PRUN" --pernode "$JOBINFO"
expect_placement pernode "node1 node2 node3 node4"
run single_dash "$PRUN" -npernode 2 -n 3 "$JOBINFO"
expect_placement single_dash "node1 node1 node2"
run N_conflict "$PRUN" -N 2 --map-by slot "$JOBINFO"
expect_status N_conflict 2
expect_one_line_errors N_conflict
expect_line N_conflict err "-N 2 and --map-by slot cannot be combined"
run N_bad "$PRUN" -N 0 "$JOBINFO"
expect_status N_bad 2
expect_line N_bad err "-N/--npernode 0: expected a positive number"

# --- --pmixmca: PMIX_MCA_<name> in every process's environment, not PRTE_MCA_ ---
run pmixmca "$PRUN" -n 2 --pmixmca prte_test_knob 42 sh -c 'echo "knob=$PMIX_MCA_prte_test_knob prte=${PRTE_MCA_prte_test_knob:-unset}"'
expect_status pmixmca 0
[ "$(grep -c '^knob=42 prte=unset$' "$TEST_TMP/pmixmca.out")" = 2 ] && pass "--pmixmca reached both ranks as PMIX_MCA_" ||
    fail "--pmixmca: $(cat "$TEST_TMP/pmixmca.out")"
run pmixmca_bad "$PRUN" -n 1 --pmixmca onlyname
expect_status pmixmca_bad 2
expect_one_line_errors pmixmca_bad

# --- older spellings: the same output as the current ones, and one note each ---
run tag_old "$PRUN" -n 2 --tag-output echo tagged
expect_status tag_old 0
expect_line tag_old out ",0]<stdout>: tagged"
expect_line tag_old out ",1]<stdout>: tagged"
[ "$(cat "$TEST_TMP/tag_old.err")" = "prun: note: --tag-output is PRRTE's older spelling of --output tag: accepted, but use --output tag" ] &&
    pass "--tag-output prints one note naming --output tag" || fail "--tag-output stderr: $(cat "$TEST_TMP/tag_old.err")"
run stamp_old "$PRUN" -n 1 --timestamp-output echo stamped
expect_status stamp_old 0
grep -qE '^\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+\] stamped$' "$TEST_TMP/stamp_old.out" &&
    pass "--timestamp-output stamps the line" || fail "--timestamp-output: $(cat "$TEST_TMP/stamp_old.out")"
expect_line stamp_old err "prun: note: --timestamp-output is PRRTE's older spelling of --output timestamp"
run tag_new "$PRUN" -n 1 --output tag echo tagged
expect_no_line tag_new err "note"

finish
