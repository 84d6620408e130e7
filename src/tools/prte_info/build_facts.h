// What prte_info says about how this installation was built (PRRTE's --arch, --config,
// --hostname, --path, --show-version): facts the build passes in (Makefile.inc) and the versions
// of the libraries it was compiled against and runs with.
#pragma once

#include <string>

#include "tools/prte_info/info_report.h"
#include "util/status.h"

namespace prte::info {

void print_arch(const Options& options);
void print_build_host(const Options& options);
void print_config(const Options& options);
// `which`: prefix, bindir, libdir, incdir, mandir, pkglibdir, sysconfdir or all.
Status print_path(const Options& options, const std::string& which);
// `spec`: <type>[:<part>], type prte, all, a framework or framework:component; part full (the
// default), major, minor, release, greek or git.
Status print_show_version(const Options& options, const std::string& spec);

}  // namespace prte::info
