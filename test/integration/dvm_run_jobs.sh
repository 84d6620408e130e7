# A single-node DVM running real jobs: output forwarded, exit status propagated, tagging, -x, --wdir,
# and an orderly pterm that leaves nothing behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

start_dvm

run hostname "$PRUN" -n 2 hostname
expect_status hostname 0
[ "$(wc -l <"$TEST_TMP/hostname.out")" -eq 2 ] && pass "two ranks, two lines" || fail "expected 2 lines: $(cat "$TEST_TMP/hostname.out")"
expect_line hostname out "$(hostname)"

run args "$PRUN" -n 1 echo one two
expect_line args out "one two"

run status3 "$PRUN" -n 1 sh -c 'exit 3'
expect_status status3 3

run tag "$PRUN" -n 2 --output tag echo tagged
expect_status tag 0
expect_line tag out ",0]<stdout>: tagged"
expect_line tag out ",1]<stdout>: tagged"

run stderr "$PRUN" -n 1 sh -c 'echo to-err >&2'
expect_line stderr err "to-err"

run xvar env PRTE_TEST_VALUE=forty-two "$PRUN" -n 1 -x PRTE_TEST_VALUE sh -c 'echo "value=$PRTE_TEST_VALUE"'
expect_line xvar out "value=forty-two"

mkdir -p "$TEST_TMP/work"
run wdir "$PRUN" -n 1 --wdir "$TEST_TMP/work" pwd
expect_line wdir out "$TEST_TMP/work"

run many "$PRUN" -n 8 --map-by :OVERSUBSCRIBE echo x
expect_status many 0
[ "$(grep -c '^x$' "$TEST_TMP/many.out")" -eq 8 ] && pass "8 ranks" || fail "8 ranks: $(cat "$TEST_TMP/many.out")"

# --bind-to core: each rank on a core of its own; --bind-to none: every rank may run anywhere.
cores=$(grep -c ^processor /proc/cpuinfo)
run bound "$PRUN" -n 2 --bind-to core --output tag grep Cpus_allowed_list /proc/self/status
expect_status bound 0
if [ "$cores" -ge 2 ]; then
    sets=$(awk -F'\t' '{print $2}' "$TEST_TMP/bound.out" | sort -u | wc -l)
    single=$(awk -F'\t' '$2 ~ /^[0-9]+$/' "$TEST_TMP/bound.out" | wc -l)
    [ "$sets" -eq 2 ] && [ "$single" -eq 2 ] && pass "--bind-to core: one distinct core per rank" ||
        fail "--bind-to core: $(cat "$TEST_TMP/bound.out")"
fi
run unbound "$PRUN" -n 1 --bind-to none grep Cpus_allowed_list /proc/self/status
expect_line unbound out "$(grep Cpus_allowed_list /proc/self/status | awk -F'\t' '{print $2}')"

pid=$DVM_PID
stop_dvm
if alive "$pid"; then fail "prte still running after pterm"; else pass "pterm ended the DVM"; fi
if [ -e "$TEST_TMP/prte.$(id -u)/dvm.$pid" ]; then fail "dvm.$pid left behind"; else pass "registry entry removed"; fi
if ls -d "$TEST_TMP/prte.$(id -u)"/*.session >/dev/null 2>&1; then fail "session directory left behind"; else pass "no session directory left"; fi

finish
