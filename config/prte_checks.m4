# Dependency checks for prte. Every failure is one line that names the package to install.

AC_DEFUN([PRTE_CHECK_CXX20], [
  AC_MSG_CHECKING([whether $CXX supports C++20])
  prte_save_CXXFLAGS=$CXXFLAGS
  CXXFLAGS="$CXXFLAGS -std=c++20"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include <concepts>
#include <span>
template <std::integral T> constexpr T twice(T v) { return v * 2; }
struct S { int a; int b; };
]], [[ constexpr S s{.a = 1, .b = twice(2)}; static_assert(s.b == 4); ]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([a C++20 compiler is required: install Debian package g++ (GCC 12 or newer)])])
  CXXFLAGS=$prte_save_CXXFLAGS
  CXX="$CXX -std=c++20"
])

AC_DEFUN([PRTE_CHECK_PMIX], [
  PKG_CHECK_MODULES([PMIX], [pmix >= 4.2.2], [],
    [AC_MSG_ERROR([OpenPMIx >= 4.2.2 not found (pkg-config pmix): install Debian package libpmix-dev])])
  # Debian's pmix.pc adds the include/pmix directory, which holds PMIx's private src/ headers.
  # We use only the public API, so drop that directory: nothing can include a private header by accident.
  PMIX_CFLAGS=`echo " $PMIX_CFLAGS " | sed -e 's| -I[[^ ]]*/include/pmix | |g'`
  PRTE_PMIX_VERSION=`$PKG_CONFIG --modversion pmix`
  AC_SUBST([PRTE_PMIX_VERSION])
])

# OpenPMIx 4.2.2's server keeps a tool's and a group operation's records for good (issues 14 and
# 13); the repairs in src/pmix/pmix422/repairs.c and pmix422/groups.c need its private headers,
# which Debian's libpmix-dev installs under the include directory. Only those files are compiled
# with them (PMIX_PRIVATE_CPPFLAGS), and only
# when they describe exactly 4.2.2; otherwise prte builds without the repairs and says so.
AC_DEFUN([PRTE_CHECK_PMIX_PRIVATE_HEADERS], [
  AC_MSG_CHECKING([for OpenPMIx 4.2.2's private server headers])
  prte_pmix_includedir=`$PKG_CONFIG --variable=includedir pmix`
  PMIX_PRIVATE_CPPFLAGS="-I$prte_pmix_includedir/pmix -I$prte_pmix_includedir -I$prte_pmix_includedir/.."
  AC_LANG_PUSH([C])
  prte_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $PMIX_PRIVATE_CPPFLAGS"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "src/include/pmix_config.h"
#include "src/include/pmix_globals.h"
#include "src/mca/ptl/ptl_types.h"
#include "src/server/pmix_server_ops.h"
#if PMIX_MAJOR_VERSION != 4 || PMIX_MINOR_VERSION != 2 || PMIX_RELEASE_VERSION != 2
#error not 4.2.2
#endif
]], [[return pmix_server_globals.clients.size;]])], [prte_have_pmix422_private=yes], [prte_have_pmix422_private=no])
  CPPFLAGS=$prte_save_CPPFLAGS
  AC_LANG_POP([C])
  AC_MSG_RESULT([$prte_have_pmix422_private])
  AS_IF([test "$prte_have_pmix422_private" = yes],
    [PMIX_PRIVATE_CPPFLAGS="$PMIX_PRIVATE_CPPFLAGS -DPRTE_PMIX422_PRIVATE_HEADERS"],
    [PMIX_PRIVATE_CPPFLAGS=""])
  # The repairs read and write the private structures of the very library these headers came
  # with: its GNU build id is recorded, and at run time a libpmix with another one (a Debian
  # update, another build) turns the repairs off (src/pmix/pmix422/repairs.c).
  PRTE_PMIX422_BUILD_ID=
  AS_IF([test "$prte_have_pmix422_private" = yes], [
    AC_MSG_CHECKING([the build id of the libpmix the repairs are checked against])
    prte_pmix_lib=`$PKG_CONFIG --variable=libdir pmix`/libpmix.so
    prte_pmix_lib=`readlink -f "$prte_pmix_lib" 2>/dev/null`
    AS_IF([test -n "$prte_pmix_lib"],
      [PRTE_PMIX422_BUILD_ID=`LC_ALL=C readelf -n "$prte_pmix_lib" 2>/dev/null | sed -n 's/.*Build ID: *\([[0-9a-f]]*\).*/\1/p' | head -1`])
    AS_IF([test -n "$PRTE_PMIX422_BUILD_ID"],
      [AC_MSG_RESULT([$PRTE_PMIX422_BUILD_ID ($prte_pmix_lib)])],
      [AC_MSG_RESULT([none found (readelf -n $prte_pmix_lib): the repairs will stay off])])
  ])
  AC_DEFINE_UNQUOTED([PRTE_PMIX422_BUILD_ID], ["$PRTE_PMIX422_BUILD_ID"],
    [GNU build id of the libpmix the PMIx 4.2.2 repairs were built and checked against; empty: none])
  AC_SUBST([PMIX_PRIVATE_CPPFLAGS])
])

# spec: Elastic DVM, "Proposed PMIx status codes": the completion events are compiled in only
# where <pmix.h> defines both codes (CPPFLAGS may supply them, as a newer PMIx would).
AC_DEFUN([PRTE_CHECK_PMIX_DVM_EVENTS], [
  AC_MSG_CHECKING([whether pmix.h defines PMIX_DVM_IS_READY and PMIX_ERR_DVM_MOD])
  prte_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $PMIX_CFLAGS"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <pmix.h>
#if !defined(PMIX_DVM_IS_READY) || !defined(PMIX_ERR_DVM_MOD)
#error not defined
#endif
]], [[]])], [prte_have_dvm_events=yes], [prte_have_dvm_events=no])
  CPPFLAGS=$prte_save_CPPFLAGS
  AC_MSG_RESULT([$prte_have_dvm_events])
  AS_IF([test "$prte_have_dvm_events" = yes],
    [AC_DEFINE([PRTE_HAVE_PMIX_DVM_EVENTS], [1], [pmix.h defines PMIX_DVM_IS_READY and PMIX_ERR_DVM_MOD])])
])

AC_DEFUN([PRTE_CHECK_HWLOC], [
  PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [],
    [AC_MSG_ERROR([hwloc >= 2.0 not found (pkg-config hwloc): install Debian package libhwloc-dev])])
])

AC_DEFUN([PRTE_CHECK_LIBEVENT], [
  PKG_CHECK_MODULES([LIBEVENT], [libevent >= 2.1 libevent_pthreads >= 2.1], [],
    [AC_MSG_ERROR([libevent >= 2.1 with pthreads not found (pkg-config libevent_pthreads): install Debian package libevent-dev])])
])

AC_DEFUN([PRTE_CHECK_LTDL], [
  AC_CHECK_HEADER([ltdl.h], [],
    [AC_MSG_ERROR([libltdl not found (ltdl.h): install Debian package libltdl-dev])])
  AC_CHECK_LIB([ltdl], [lt_dlopenadvise], [LTDL_LIBS=-lltdl],
    [AC_MSG_ERROR([libltdl not found (-lltdl): install Debian package libltdl-dev])])
  AC_SUBST([LTDL_LIBS])
])

# The daemons' handshake: HMAC-SHA256 (rml/auth.cc; the nonces come from getrandom). GNU Nettle,
# not OpenSSL's libcrypto: loading libcrypto cost every prte and prted 0.55 ms of its start-up
# (Nettle 0.04 ms), on the critical path of a one-shot prterun.
AC_DEFUN([PRTE_CHECK_CRYPTO], [
  PKG_CHECK_MODULES([CRYPTO], [nettle >= 3.4], [],
    [AC_MSG_ERROR([GNU Nettle not found (pkg-config nettle): install Debian package nettle-dev])])
])

AC_DEFUN([PRTE_CHECK_FMT], [
  PKG_CHECK_MODULES([FMT], [fmt >= 8], [],
    [AC_MSG_ERROR([fmt >= 8 not found (pkg-config fmt): install Debian package libfmt-dev])])
])

AC_DEFUN([PRTE_CHECK_CLI11], [
  AC_CHECK_HEADER([CLI/CLI.hpp], [],
    [AC_MSG_ERROR([CLI11 not found (CLI/CLI.hpp): install Debian package libcli11-dev])])
])

# GoogleTest is needed only for the unit tests; without it the build works and `make check` says why.
AC_DEFUN([PRTE_CHECK_GTEST], [
  prte_have_gtest=no
  AC_CHECK_HEADER([gtest/gtest.h], [
    prte_save_LIBS=$LIBS
    LIBS="-lgtest -pthread $LIBS"
    AC_MSG_CHECKING([for libgtest])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <gtest/gtest.h>]], [[testing::InitGoogleTest();]])],
      [prte_have_gtest=yes], [])
    AC_MSG_RESULT([$prte_have_gtest])
    LIBS=$prte_save_LIBS])
  AS_IF([test "$prte_have_gtest" = no],
    [AC_MSG_WARN([GoogleTest not found: unit tests disabled (install Debian package libgtest-dev)])])
  AM_CONDITIONAL([PRTE_HAVE_GTEST], [test "$prte_have_gtest" = yes])
])

# libslurm is optional: with it the Slurm components (ras/slurm, plm/slurm) are built. Debian's
# libslurm-dev has no pkg-config file, so the header and the library are checked directly.
# --without-slurm leaves them out even where libslurm is installed.
AC_DEFUN([PRTE_CHECK_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--without-slurm], [do not build the Slurm components even if libslurm is found])],
    [], [with_slurm=check])
  prte_have_slurm=no
  SLURM_LIBS=
  AS_IF([test "x$with_slurm" != xno], [
    AC_CHECK_HEADER([slurm/slurm.h],
      [AC_CHECK_LIB([slurm], [slurm_kill_job], [prte_have_slurm=yes; SLURM_LIBS=-lslurm])])
    AS_IF([test "$prte_have_slurm" = no && test "x$with_slurm" = xyes],
      [AC_MSG_ERROR([--with-slurm given but libslurm was not found (slurm/slurm.h, -lslurm): install Debian package libslurm-dev])])
  ])
  AS_IF([test "$prte_have_slurm" = yes],
    [AC_DEFINE([PRTE_HAVE_SLURM], [1], [The Slurm components (ras/slurm, plm/slurm) are built])
     prte_slurm_summary="yes (ras/slurm, plm/slurm)"],
    [AS_IF([test "x$with_slurm" = xno],
       [prte_slurm_summary="no (--without-slurm: ras/slurm and plm/slurm are not built)"],
       [prte_slurm_summary="no (libslurm-dev not found: ras/slurm and plm/slurm are not built)"])])
  AC_SUBST([SLURM_LIBS])
  AM_CONDITIONAL([PRTE_HAVE_SLURM], [test "$prte_have_slurm" = yes])
])
