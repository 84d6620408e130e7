#!/bin/sh
# prun --preload-binary and --preload-files on a DVM of 2 local nodes (issue 41): the program is
# copied into each node's session directory and run from there; the files land in each process's
# working directory with their contents and go when the job ends, except a file that was there
# already (the very one prun read: a shared file system), which is left alone; a different file of
# the same name is not overwritten (the launch fails, naming node and file); a file prun cannot read,
# or too much, is refused in one line before anything runs.
. "$PRTE_SRCDIR/test/integration/lib.sh"
. "$PRTE_SRCDIR/test/integration/dvm_lib.sh"
. "$PRTE_SRCDIR/test/integration/multinode_lib.sh"

start_local_nodes_dvm 2 2 --prtemca odls_base_verbose 5

scratch="$TEST_TMP/scratch"
mkdir -p "$scratch/sub" "$TEST_TMP/wd"
cat >"$scratch/whereami" <<'SCRIPT'
#!/bin/sh
echo "ran $0 on $PRTE_NODE_NAME"
SCRIPT
chmod 755 "$scratch/whereami"

# gone_within PATH: waits (up to 5 s) for PATH to be removed; the DVM cleans up as the job ends,
# which may be just after prun has its exit status.
gone_within() {
    t=0
    while [ -e "$1" ] && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
    [ ! -e "$1" ]
}

# --- --preload-binary: each rank runs its own node's copy, in that node's session directory ---
run bin "$PRUN" --preload-binary --map-by node -n 2 "$scratch/whereami"
expect_status bin 0
for node in node1 node2; do
    path=$(sed -n "s/^ran \(.*\) on $node\$/\1/p" "$TEST_TMP/bin.out")
    session=$(dirname "$(dirname "$path")")
    if [ -n "$path" ] && [ "$path" != "$scratch/whereami" ] && grep -qx "node=$node" "$session/owner" 2>/dev/null; then
        pass "the rank on $node runs the copy in $node's session directory ($path)"
    else
        fail "the rank on $node ran '$path', not a copy in its node's session directory"
        sed 's/^/    /' "$TEST_TMP/bin.out" "$TEST_TMP/bin.err"
    fi
    [ -n "$path" ] && { gone_within "$(dirname "$path")" && pass "$node's copy goes with the job" || fail "$path is left after the job"; }
done
grep -q "wrote the preloaded program 'whereami'" "$TEST_TMP/prte.err" && pass "odls verbose says where the program was written" ||
    fail "no odls verbose line for the program: $(grep -i preload "$TEST_TMP/prte.err")"

# --- --preload-files into an empty --wd: each rank finds them, relative names kept, an absolute one by its base name ---
printf 'alpha\n' >"$scratch/a.txt"
printf 'beta\n' >"$scratch/sub/b.txt"
printf 'gamma\n' >"$scratch/abs.txt"
(cd "$scratch" && "$PRUN" --preload-files "a.txt,./sub/b.txt,$scratch/abs.txt" --wd "$TEST_TMP/wd" --map-by node -n 2 \
    sh -c 'echo "$PRTE_NODE_NAME $(pwd) $(cat a.txt) $(cat sub/b.txt) $(cat abs.txt)"' >"$TEST_TMP/files.out" 2>"$TEST_TMP/files.err")
status_files=$?
expect_status files 0
for node in node1 node2; do expect_line files out "$node $TEST_TMP/wd alpha beta gamma"; done
gone_within "$TEST_TMP/wd/a.txt" && gone_within "$TEST_TMP/wd/abs.txt" && pass "the files written go when the job ends" ||
    fail "files left in the working directory: $(ls -R "$TEST_TMP/wd")"
grep -q "wrote the preloaded file 'a.txt'" "$TEST_TMP/prte.err" && pass "odls verbose says where the files were written" ||
    fail "no odls verbose line for a.txt"

# --- up to the 8 MiB limit a job may carry: a 7 MiB file reaches the node whole ---
truncate -s 7M "$scratch/seven.dat"
(cd "$scratch" && "$PRUN" --preload-files seven.dat --wd "$TEST_TMP/wd" --host node1 -n 1 wc -c seven.dat >"$TEST_TMP/seven.out" 2>"$TEST_TMP/seven.err")
status_seven=$?
expect_status seven 0
expect_line seven out "7340032 seven.dat"

# --- the very file, already in the working directory (a shared file system): nothing written, nothing removed ---
(cd "$scratch" && "$PRUN" --preload-files a.txt --wd "$scratch" -n 1 cat a.txt >"$TEST_TMP/same.out" 2>"$TEST_TMP/same.err")
status_same=$?
expect_status same 0
expect_line same out "alpha"
grep -q "left 'a.txt' in $scratch: the very file prun read" "$TEST_TMP/prte.err" && pass "the daemon says the file is already there" ||
    fail "no 'left' line for the same file"
[ "$(cat "$scratch/a.txt" 2>/dev/null)" = alpha ] && pass "the user's own file is still there after the job" || fail "$scratch/a.txt is gone"

# --- a different file of that name in the working directory: not overwritten, the launch fails naming node and file ---
printf 'theirs\n' >"$TEST_TMP/wd/a.txt"
(cd "$scratch" && "$PRUN" --preload-files a.txt --wd "$TEST_TMP/wd" --host node2 -n 1 cat a.txt >"$TEST_TMP/clash.out" 2>"$TEST_TMP/clash.err")
status_clash=$?
[ "$status_clash" != 0 ] && pass "a name taken by another file fails the launch" || fail "clash exited 0"
expect_line clash err "node node2: cannot preload 'a.txt' into $TEST_TMP/wd: a different file of that name is there"
[ "$(cat "$TEST_TMP/wd/a.txt")" = theirs ] && pass "the file that was there is untouched" || fail "a.txt was overwritten"

# --- refused before anything runs: a file prun cannot read, or more than 8 MiB ---
run missing "$PRUN" --preload-files "$scratch/nope.txt" -n 1 echo ran
expect_status missing 1
expect_line missing err "prun: error: --preload-files $scratch/nope.txt: cannot read '$scratch/nope.txt': No such file or directory"
expect_one_line_errors missing
expect_no_line missing out "ran"
if [ "$(id -u)" != 0 ]; then
    printf 'secret\n' >"$scratch/locked.txt"
    chmod 000 "$scratch/locked.txt"
    run locked "$PRUN" --preload-files "$scratch/locked.txt" -n 1 echo ran
    expect_status locked 1
    expect_line locked err "cannot read '$scratch/locked.txt': Permission denied"
    expect_one_line_errors locked
fi
truncate -s 9M "$scratch/big.dat"
run big "$PRUN" --preload-files "$scratch/big.dat" -n 1 echo ran
expect_status big 1
expect_line big err "over the 8 MiB a job may carry"
expect_one_line_errors big

stop_dvm
finish
