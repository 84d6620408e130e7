#!/bin/sh
# A third party builds a component against the INSTALLED prte and the installed prte uses it.
#
# Installs the build tree into a staging directory (make install DESTDIR=...; the real prefix is
# never touched), copies examples/ras-component somewhere outside the source tree, builds it with
# nothing but `pkg-config prte` from the staged install, then runs the staged prte_info with the
# copy's directory on mca_base_component_path and checks that the component is listed, selected
# by priority, included and excluded by --prtemca ras, refused with a clear reason when it has
# nothing to offer (or was built for another interface version or other runtime types), and that its parameter is
# registered. A small program built the same way checks that the component's allocate() fills the
# node pool and rejects malformed entries.
#
# Environment (set by CTest, see test/Makefile.inc): PRTE_BUILDDIR, PRTE_SRCDIR.
# Exit: 0 pass, 77 skipped (prints "SKIP: why"), anything else fails (prints "FAIL: why").
set -eu

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v make >/dev/null 2>&1 || skip "make is not installed"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config is not installed (apt-get install pkg-config)"
: "${PRTE_BUILDDIR:?set PRTE_BUILDDIR to the absolute path of a configured and built prte tree}"
: "${PRTE_SRCDIR:?set PRTE_SRCDIR to the absolute path of the prte source tree}"
test -f "$PRTE_BUILDDIR/prte.pc" || fail "$PRTE_BUILDDIR/prte.pc not found: is PRTE_BUILDDIR a configured build tree?"
test -d "$PRTE_SRCDIR/examples/ras-component" || fail "$PRTE_SRCDIR/examples/ras-component not found"

# Nothing from the caller may steer the runs below: an outer make's flags, a component path or
# selection in the environment, or the user's and the system's parameter files.
unset MAKEFLAGS MFLAGS MAKELEVEL PRTE_ENVLIST_NODES MY_NODES || true
for v in $(env | sed -n 's/^\(PRTE_MCA_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

stage=$(mktemp -d "${TMPDIR:-/tmp}/prte-stage.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/prte-oot.XXXXXX")
trap 'rm -rf "$stage" "$work"' EXIT
trap 'exit 130' INT TERM HUP
mkdir "$work/home" "$work/etc"
HOME="$work/home"
PRTE_SYSCONFDIR="$work/etc"
export HOME PRTE_SYSCONFDIR

show() {  # show <file>...: print files a failure refers to
    for f in "$@"; do
        test -s "$f" || continue
        echo "---- $(basename "$f")" >&2
        cat "$f" >&2
    done
}

# ---- 1. install into the staging directory
if ! make -C "$PRTE_BUILDDIR" install DESTDIR="$stage" >"$work/install.log" 2>&1; then
    show "$work/install.log"
    fail "make install DESTDIR=$stage failed in $PRTE_BUILDDIR (log above)"
fi
prefix=$(sed -n 's/^prefix=//p' "$PRTE_BUILDDIR/prte.pc")
root="$stage$prefix"
for f in bin/prte_info lib/pkgconfig/prte.pc lib/prte/mca_ras_hosts.so include/prte/mca/ras/ras.h; do
    test -e "$root/$f" || fail "the staged install has no $f (looked in $root)"
done

# ---- 2. build the example outside the source tree, from the staged install only
copy="$work/ras-component"
cp -R "$PRTE_SRCDIR/examples/ras-component" "$copy"
rm -f "$copy"/*.so "$copy"/*.o
PKG_CONFIG="pkg-config --define-prefix"
PKG_CONFIG_PATH="$root/lib/pkgconfig"
export PKG_CONFIG_PATH
cflags=$($PKG_CONFIG --cflags prte) || fail "pkg-config --define-prefix --cflags prte failed with PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
case " $cflags " in
*" -I$root/include/prte "*) ;;
*) fail "pkg-config --cflags prte does not point into the staged install: $cflags" ;;
esac
if ! make -C "$copy" PKG_CONFIG="$PKG_CONFIG" PKG_CONFIG_PATH="$PKG_CONFIG_PATH" >"$work/build.log" 2>&1; then
    show "$work/build.log"
    fail "the example component does not build against the installed headers (log above)"
fi
test -f "$copy/mca_ras_envlist.so" || fail "make -C $copy did not produce mca_ras_envlist.so"
if grep -F -e "$PRTE_SRCDIR/src" -e "$PRTE_BUILDDIR/src" "$work/build.log" >/dev/null; then
    show "$work/build.log"
    fail "the example's build used the source or build tree instead of the installed headers"
fi

# ---- 3. the staged prte_info, with the copy first on the component path
LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PRTE_MCA_mca_base_component_path="$copy:$root/lib/prte"
export LD_LIBRARY_PATH PRTE_MCA_mca_base_component_path

# info <label> <prte_info args...>: stdout in $work/<label>.out, stderr in .err, status in $rc
info() {
    label=$1
    shift
    out="$work/$label.out"
    err="$work/$label.err"
    if "$root/bin/prte_info" "$@" >"$out" 2>"$err"; then rc=0; else rc=$?; fi
    cmd="prte_info $*"
}
problem() {  # the last run did not do what was expected
    show "$out" "$err"
    fail "$cmd: $*"
}
status_is_zero() { test "$rc" -eq 0 || problem "exited with status $rc"; }
status_is_nonzero() { test "$rc" -ne 0 || problem "exited with status 0, expected a failure"; }
has_line() { grep -qxF -- "$2" "$1" || problem "expected the line '$2'"; }
no_line_starting() { ! grep -q "^$2" "$1" || problem "expected no line starting with '$2'"; }
line_number() { grep -nxF -- "$2" "$1" | head -n 1 | cut -d: -f1; }

# 3a. the component is listed next to the installed ones
info list --parsable
status_is_zero
has_line "$out" "mca:ras:envlist:version:1.0.0"
has_line "$out" "mca:ras:envlist:path:$copy/mca_ras_envlist.so"
has_line "$out" "mca:ras:hosts:path:$root/lib/prte/mca_ras_hosts.so"
no_line_starting "$out" "failed:ras:envlist:"

# 3b. selection with the variable set: by name, excluded, and both in priority order
PRTE_ENVLIST_NODES=n1:2,n2
export PRTE_ENVLIST_NODES
info only_envlist --selected --parsable --prtemca ras envlist
status_is_zero
has_line "$out" "selected:ras:envlist:20"
no_line_starting "$out" "selected:ras:hosts:"

info exclude_envlist --selected --parsable --prtemca ras '^envlist'
status_is_zero
has_line "$out" "selected:ras:hosts:10"
no_line_starting "$out" "selected:ras:envlist:"

info both --selected --parsable
status_is_zero
has_line "$out" "selected:ras:envlist:20"
has_line "$out" "selected:ras:hosts:10"
first=$(line_number "$out" "selected:ras:envlist:20")
second=$(line_number "$out" "selected:ras:hosts:10")
test "$first" -lt "$second" || problem "envlist (priority 20) must be listed before hosts (priority 10)"

# 3c. without the variable: asking for envlist by name is an error that says why
unset PRTE_ENVLIST_NODES
info unset_envlist --selected --parsable --prtemca ras envlist
status_is_nonzero
test "$(grep -c '^prte_info: error: ' "$err")" -eq 1 || problem "expected exactly one 'prte_info: error:' line on stderr"
grep '^prte_info: error: ' "$err" | grep 'envlist' | grep -q 'not set' ||
    problem "the error must name envlist and say PRTE_ENVLIST_NODES is not set"

info unset_default --selected --parsable
status_is_zero
has_line "$out" "selected:ras:hosts:10"
no_line_starting "$out" "selected:ras:envlist:"

# 3d. an unknown component name is an error naming it and what is available
info nosuch --selected --parsable --prtemca ras nosuch
status_is_nonzero
grep -q 'nosuch' "$err" || problem "the error must name the unknown component 'nosuch'"
grep 'nosuch' "$err" | grep 'envlist' | grep -q 'hosts' || problem "the error must list the available components (envlist, hosts)"

# 3e. the component's parameter: default, help, and set from the environment
info param_default --param ras envlist --parsable
status_is_zero
has_line "$out" "param:ras_envlist_variable:value:PRTE_ENVLIST_NODES"
has_line "$out" "param:ras_envlist_variable:source:default"
has_line "$out" "param:ras_envlist_variable:type:string"
grep -q '^param:ras_envlist_variable:help:..*' "$out" || problem "ras_envlist_variable has no help text"

PRTE_MCA_ras_envlist_variable=FOO
export PRTE_MCA_ras_envlist_variable
info param_env --param ras envlist --parsable
status_is_zero
has_line "$out" "param:ras_envlist_variable:value:FOO"
grep -q '^param:ras_envlist_variable:source:environment' "$out" || problem "expected source 'environment ...' for ras_envlist_variable"

# ... and the component reads the variable the parameter names
PRTE_MCA_ras_envlist_variable=MY_NODES
MY_NODES=x1:3
export PRTE_MCA_ras_envlist_variable MY_NODES
info renamed --selected --parsable --prtemca ras envlist
status_is_zero
has_line "$out" "selected:ras:envlist:20"
unset MY_NODES
info renamed_unset --selected --parsable --prtemca ras envlist
status_is_nonzero
grep -q 'MY_NODES is not set' "$err" || problem "the reason must name the configured variable MY_NODES"

# ... whose value is checked when the component registers it
PRTE_MCA_ras_envlist_variable=1BAD
info renamed_bad --selected --parsable
status_is_nonzero
grep 'ras_envlist_variable' "$err" | grep -q "1BAD" || problem "the error must name ras_envlist_variable and the bad value"
unset PRTE_MCA_ras_envlist_variable

# 3f. a copy built for another interface version is refused, naming the file and what to do
stale="$work/stale"
cp -R "$PRTE_SRCDIR/examples/ras-component" "$stale"
rm -f "$stale"/*.so "$stale"/*.o
sed 's/\.interface_version = prte::ras::kInterfaceVersion/.interface_version = 999/' "$copy/envlist.cc" >"$stale/envlist.cc"
grep -q 'interface_version = 999' "$stale/envlist.cc" || fail "could not make a stale copy of envlist.cc (the descriptor changed?)"
if ! make -C "$stale" PKG_CONFIG="$PKG_CONFIG" PKG_CONFIG_PATH="$PKG_CONFIG_PATH" >"$work/stale-build.log" 2>&1; then
    show "$work/stale-build.log"
    fail "the stale copy of the example does not build (log above)"
fi
PRTE_MCA_mca_base_component_path="$stale:$root/lib/prte"
info stale --parsable
PRTE_MCA_mca_base_component_path="$copy:$root/lib/prte"
status_is_nonzero
grep -q "^failed:ras:envlist:$stale/mca_ras_envlist.so:.*interface version 999.*rebuild" "$out" ||
    problem "expected a failed:ras:envlist line naming the file, interface version 999 and 'rebuild'"
grep -q "$stale/mca_ras_envlist.so" "$err" || problem "the message on stderr must name the refused file"
has_line "$out" "mca:ras:hosts:version:1.0.0"

# 3g. a copy claiming other runtime types (as one built before a runtime::Node member was added
# would) is refused, naming both fingerprints and what to do (issue 46, item 5)
oldtypes="$work/oldtypes"
cp -R "$PRTE_SRCDIR/examples/ras-component" "$oldtypes"
rm -f "$oldtypes"/*.so "$oldtypes"/*.o
sed 's/\.runtime_types = prte::runtime::kTypesFingerprint/.runtime_types = 0x1234/' "$copy/envlist.cc" >"$oldtypes/envlist.cc"
grep -q 'runtime_types = 0x1234' "$oldtypes/envlist.cc" || fail "could not make an old-types copy of envlist.cc (the descriptor changed?)"
if ! make -C "$oldtypes" PKG_CONFIG="$PKG_CONFIG" PKG_CONFIG_PATH="$PKG_CONFIG_PATH" >"$work/oldtypes-build.log" 2>&1; then
    show "$work/oldtypes-build.log"
    fail "the old-types copy of the example does not build (log above)"
fi
PRTE_MCA_mca_base_component_path="$oldtypes:$root/lib/prte"
info oldtypes --parsable
PRTE_MCA_mca_base_component_path="$copy:$root/lib/prte"
status_is_nonzero
grep -q "^failed:ras:envlist:$oldtypes/mca_ras_envlist.so:built against runtime types 0000000000001234, this prte's are [0-9a-f]\{16\}: rebuild" "$out" ||
    problem "expected a failed:ras:envlist line naming the file, both runtime-types fingerprints and 'rebuild'"
has_line "$out" "mca:ras:hosts:version:1.0.0"

# ---- 4. allocate(): a program built against the staged install asks the RAS framework for nodes
cat >"$work/allocate.cc" <<'EOF'
// Opens and selects the ras framework as the DVM master would and prints the allocation.
#include <cstdio>
#include <string>
#include <vector>

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "mca/ras/base/ras_base.h"
#include "program/mca_setup.h"
#include "runtime/node.h"

extern char** environ;

int main()
{
    prte::Status st = prte::program::setup_mca(environ, {});
    auto& framework = prte::ras::base::framework();
    auto& registry = prte::mca::ParamRegistry::instance();
    if (st) st = framework.open(registry, prte::mca::ComponentRepository::instance());
    if (st && !registry.errors().empty()) st = prte::Status(prte::Errc::bad_param, registry.errors().front());
    if (st) st = framework.select({prte::mca::ProcessRole::master});
    prte::runtime::NodePool pool;
    if (st) st = prte::ras::base::allocate({}, pool);
    if (!st) {
        std::printf("error:%s:%s\n", prte::to_string(st.code()), st.message().c_str());
        return 2;
    }
    for (const prte::runtime::Node* node : pool.nodes()) {
        std::printf("node:%s:%d:%s:%s\n", node->name.c_str(), node->slots, node->slots_given ? "given" : "unstated",
                    node->ras_component.c_str());
    }
    return 0;
}
EOF
cxx=${CXX:-g++}
# shellcheck disable=SC2046 # the pkg-config output is a list of flags
if ! $cxx -o "$work/allocate" "$work/allocate.cc" $($PKG_CONFIG --cflags --libs prte) >"$work/allocate-build.log" 2>&1; then
    show "$work/allocate-build.log"
    fail "a program using the installed RAS framework headers does not build (log above)"
fi

allocate() {  # allocate <label> <PRTE_ENVLIST_NODES value>
    out="$work/$1.out"
    err="$work/$1.err"
    cmd="PRTE_ENVLIST_NODES='$2' allocate"
    if PRTE_ENVLIST_NODES=$2 "$work/allocate" >"$out" 2>"$err"; then rc=0; else rc=$?; fi
}

allocate alloc_good "n1:2, n2"
status_is_zero
has_line "$out" "node:n1:2:given:envlist"
has_line "$out" "node:n2:1:unstated:envlist"
test "$(grep -c '^node:' "$out")" -eq 2 || problem "expected exactly the two nodes of the list"

for entry in "a:x" "a:0" ":3"; do
    case $entry in
    :*) why="the node name is empty" ;;
    *) why="slots must be a positive integer" ;;
    esac
    allocate alloc_bad "n1:2,$entry"
    status_is_nonzero
    has_line "$out" "error:bad parameter:PRTE_ENVLIST_NODES: bad entry '$entry': $why"
done

echo "PASS: out-of-tree ras/envlist built against the installed prte ($root) and used by its prte_info"
