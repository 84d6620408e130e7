#!/bin/sh
# Every mutable static and namespace-scope variable in src/ is listed, with its reason, in
# contrib/function-statics.txt (issue 30, item 5; issue 46, item 7). The check must also fail on a
# copy of src/ that adds an unlisted one of each kind (a function-local static, one constructed
# with arguments, a variable in an anonymous namespace, a static at file scope in a C file), must
# not take constants, declarations or lambdas for state, and must fail on a list naming one that is
# gone.
. "$(dirname "$0")/lib.sh"

check="$PRTE_SRCDIR/contrib/check-statics.sh"
list="$PRTE_SRCDIR/contrib/function-statics.txt"
if sh "$check" "$PRTE_SRCDIR/src" "$list" >"$TEST_TMP/tree.out" 2>&1; then
    pass "every mutable static and namespace-scope variable is listed ($(tail -1 "$TEST_TMP/tree.out"))"
else
    fail "the statics check fails on the tree:"
    sed 's/^/    /' "$TEST_TMP/tree.out"
fi

# fails_naming <case> <src> <list> <line> <what>: the check must fail on <src> with <list>, naming <line>.
fails_naming() {
    if sh "$check" "$2" "$3" >"$TEST_TMP/$1.out" 2>&1; then
        fail "the check passed with $5"
    elif grep -q "$4" "$TEST_TMP/$1.out"; then
        pass "$5 fails the check, named"
    else
        fail "the check failed without naming $5:"
        sed 's/^/    /' "$TEST_TMP/$1.out"
    fi
}

copy="$TEST_TMP/src-added"
cp -r "$PRTE_SRCDIR/src" "$copy"
printf 'int next_serial()\n{\n    static int serial = 0;\n    return ++serial;\n}\n' >>"$copy/runtime/job.cc"
fails_naming added "$copy" "$list" "src/runtime/job.cc: static int serial" "an unlisted static in src/runtime/job.cc"

# A function-local static constructed with arguments (a hidden global all the same).
copy="$TEST_TMP/src-args"
cp -r "$PRTE_SRCDIR/src" "$copy"
printf 'std::string& last_name()\n{\n    static std::string name(8, 0);\n    return name;\n}\n' >>"$copy/runtime/job.cc"
fails_naming args "$copy" "$list" "src/runtime/job.cc: static std::string name" \
    "an unlisted function-local static constructed with arguments"

# Mutable state at namespace scope: in an anonymous namespace, and a static at file scope.
copy="$TEST_TMP/src-namespace"
cp -r "$PRTE_SRCDIR/src" "$copy"
printf 'namespace {\nstd::vector<int>* pending = nullptr;\n}  // namespace\n' >>"$copy/runtime/job.cc"
printf 'static int calls;\n' >>"$copy/pmix/pmix422/switch.c"
fails_naming namespace "$copy" "$list" "src/runtime/job.cc: std::vector<int>\* pending" \
    "an unlisted variable in an anonymous namespace"
fails_naming file_scope "$copy" "$list" "src/pmix/pmix422/switch.c: static int calls" \
    "an unlisted static at file scope in a C file"

# What is not state passes: constants, function declarations and definitions, static member
# functions, a lambda inside a function, a type, an extern declaration.
copy="$TEST_TMP/src-not-state"
cp -r "$PRTE_SRCDIR/src" "$copy"
cat >>"$copy/runtime/job.cc" <<'EOS'
namespace {
constexpr int kLimit = 4;
const std::string kName = "x";
const char* const kWords[] = {"a", "b"};
int helper(int fd, short what, void* arg);
std::function<void()> make_callback(int n);
struct Holder {
    static Holder& get(int n);
    static constexpr int kSize = 2;
    int value = 0;
};
extern int defined_elsewhere;
int helper(int fd, short, void*)
{
    static const int base = 3;
    auto f = [fd] { int local = fd; return local; };
    return f() + base + kLimit + static_cast<int>(kName.size());
}
}  // namespace
EOS
if sh "$check" "$copy" "$list" >"$TEST_TMP/not-state.out" 2>&1; then
    pass "constants, declarations, static member functions and lambdas are not taken for state"
else
    fail "the check took something that is not state for state:"
    sed 's/^/    /' "$TEST_TMP/not-state.out"
fi

printf 'src/runtime/job.cc: static int gone  # listed, not there\n' | cat "$list" - >"$TEST_TMP/list"
fails_naming gone "$PRTE_SRCDIR/src" "$TEST_TMP/list" "src/runtime/job.cc: static int gone" \
    "a listed static that is not there"

finish
