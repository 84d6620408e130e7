// Finding the build tree's component files for unit tests that load them, and what a test does
// when one is not there. A skipped GoogleTest still exits 0, so a broken component build or path
// used to turn these tests green (issue 14, item 12). Now:
//   - the directories are named (CTest sets PRTE_MCA_mca_base_component_path, test/Makefile.inc)
//     and a file is not in them: the test fails, naming the file and the directories;
//   - nothing names them (the binary run by hand): the test is skipped and the binary, linked
//     with component_test_main.cc, exits 77, which CTest reports as skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "util/strings.h"

namespace prte::test {

// Set when a test was skipped because no component directory was named; read by the main.
inline std::string& components_not_located()
{
    static std::string reason;
    return reason;
}

// PRTE_MCA_mca_base_component_path's directories, else $PRTE_BUILDDIR/.libs, else none.
inline std::vector<std::string> component_dirs()
{
    const char* path = std::getenv("PRTE_MCA_mca_base_component_path");
    if (path && *path) return util::split(path, ':', /*skip_empty=*/true);
    const char* builddir = std::getenv("PRTE_BUILDDIR");
    if (builddir && *builddir) return {std::string(builddir) + "/.libs"};
    return {};
}

enum class ComponentFiles { found, missing, not_located };

// Whether every file ("mca_ras_hosts.so") is in one of component_dirs(); `why` says what is not.
inline ComponentFiles find_component_files(std::initializer_list<std::string> files, std::string& why)
{
    std::vector<std::string> dirs = component_dirs();
    if (dirs.empty()) {
        why = "no component directory named: run under CTest (make check), or set "
              "PRTE_MCA_mca_base_component_path to the build tree's .libs";
        components_not_located() = why;
        return ComponentFiles::not_located;
    }
    for (const auto& file : files) {
        bool found = false;
        for (const auto& d : dirs) found = found || std::filesystem::exists(d + "/" + file);
        if (!found) {
            why = file + " not found in " + util::join(dirs, ":") + " (PRTE_MCA_mca_base_component_path): the "
                  "components were not built, or the path is wrong";
            return ComponentFiles::missing;
        }
    }
    return ComponentFiles::found;
}

}  // namespace prte::test

// In a test body or SetUp: fails the test when the files are missing from the named directories,
// skips it when no directory is named, and goes on when they are all there.
#define PRTE_REQUIRE_COMPONENT_FILES(...)                                                        \
    do {                                                                                         \
        std::string prte_why_;                                                                   \
        switch (::prte::test::find_component_files({__VA_ARGS__}, prte_why_)) {                  \
        case ::prte::test::ComponentFiles::found: break;                                         \
        case ::prte::test::ComponentFiles::missing: GTEST_FAIL() << prte_why_;                   \
        case ::prte::test::ComponentFiles::not_located: GTEST_SKIP() << prte_why_;               \
        }                                                                                        \
    } while (0)
