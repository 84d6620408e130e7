#include "prte_config.h"

#include "tools/prte_info/build_facts.h"

#include <event2/event.h>
#include <hwloc.h>
#include <pmix.h>

#include <cstdio>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mca/base/framework.h"
#include "program/mca_setup.h"
#include "util/strings.h"

namespace prte::info {
namespace {

void line(const std::string& text) { std::fputs((text + "\n").c_str(), stdout); }

// "label:value" parsable, "Label: value" else.
void fact(const Options& options, const std::string& key, const std::string& label, const std::string& value)
{
    line(options.parsable ? fmt::format("{}:{}", key, value) : fmt::format("{:>24}: {}", label, value));
}

const std::vector<std::pair<std::string, std::string>>& paths()
{
    static const std::vector<std::pair<std::string, std::string>> all = {
        {"prefix", PRTE_INFO_PREFIX},   {"bindir", PRTE_INFO_BINDIR},         {"libdir", PRTE_INFO_LIBDIR},
        {"incdir", PRTE_INFO_INCDIR},   {"mandir", PRTE_INFO_MANDIR},         {"pkglibdir", PRTE_PKGLIBDIR},
        {"sysconfdir", PRTE_SYSCONFDIR_DEFAULT}};
    return all;
}

// "1.2.3rc1" -> major 1, minor 2, release 3, greek rc1.
std::string version_part(const std::string& version, const std::string& part)
{
    if (part == "full") return version;
    std::vector<std::string> nums = util::split(version, '.');
    std::string last = nums.empty() ? std::string() : nums.back();
    size_t digits = 0;
    while (digits < last.size() && std::isdigit(static_cast<unsigned char>(last[digits]))) ++digits;
    std::string greek = last.substr(digits);
    if (!nums.empty()) nums.back() = last.substr(0, digits);
    if (part == "major") return nums.size() > 0 ? nums[0] : "";
    if (part == "minor") return nums.size() > 1 ? nums[1] : "0";
    if (part == "release") return nums.size() > 2 ? nums[2] : "0";
    if (part == "greek") return greek;
    return "";  // git: not built from a git checkout's description
}

}  // namespace

void print_arch(const Options& options) { fact(options, "config:arch", "Configured architecture", PRTE_INFO_ARCH); }

void print_build_host(const Options& options) { fact(options, "config:host", "Configure host", PRTE_INFO_BUILD_HOST); }

void print_config(const Options& options)
{
    fact(options, "config:prefix", "Prefix", PRTE_INFO_PREFIX);
    fact(options, "config:arch", "Configured architecture", PRTE_INFO_ARCH);
    fact(options, "config:host", "Configure host", PRTE_INFO_BUILD_HOST);
    fact(options, "config:cxx", "C++ compiler", PRTE_INFO_CXX);
    fact(options, "config:cxx_version", "C++ compiler version", __VERSION__);
    fact(options, "config:cxxflags", "C++ compiler flags", PRTE_INFO_CXXFLAGS);
    fact(options, "config:ldflags", "Linker flags", PRTE_INFO_LDFLAGS);
    fact(options, "config:pmix", "PMIx (running)", PMIx_Get_version());
    unsigned hw = hwloc_get_api_version();
    fact(options, "config:hwloc", "hwloc (running)", fmt::format("{}.{}.{}", hw >> 16, (hw >> 8) & 0xff, hw & 0xff));
    fact(options, "config:libevent", "libevent (running)", event_get_version());
#ifdef PRTE_DEBUG_CHECKS
    fact(options, "config:debug_checks", "Debug checks", "yes");
#else
    fact(options, "config:debug_checks", "Debug checks", "no");
#endif
#ifdef PRTE_HAVE_SLURM
    fact(options, "config:slurm", "Slurm support", "yes");
#else
    fact(options, "config:slurm", "Slurm support", "no");
#endif
}

Status print_path(const Options& options, const std::string& which)
{
    bool found = false;
    for (const auto& [name, value] : paths()) {
        if (which != "all" && which != name) continue;
        fact(options, "path:" + name, name, value);
        found = true;
    }
    if (!found) {
        return {Errc::bad_param,
                fmt::format("--path {}: expected prefix, bindir, libdir, incdir, mandir, pkglibdir, sysconfdir or all", which)};
    }
    return {};
}

Status print_show_version(const Options& options, const std::string& spec)
{
    std::vector<std::string> words = util::split(spec, ':');
    std::string type = words.empty() ? std::string() : words[0];
    std::string part = words.size() > 1 ? words.back() : "full";
    std::string component = words.size() > 2 ? words[1] : std::string();
    if (part != "full" && part != "major" && part != "minor" && part != "release" && part != "greek" && part != "git") {
        // framework:component without a part
        if (words.size() == 2 && type != "prte" && type != "all") {
            component = part;
            part = "full";
        } else {
            return {Errc::bad_param,
                    fmt::format("--show-version {}: the part is full, major, minor, release, greek or git", spec)};
        }
    }
    bool shown = false;
    if (type == "prte" || type == "all") {
        fact(options, "version:prte", "prte", version_part(PACKAGE_VERSION, part));
        shown = true;
    }
    for (mca::Framework* f : program::all_frameworks()) {
        if (type != "all" && type != f->name()) continue;
        shown = true;
        for (const auto& c : f->candidates()) {
            if (!c.descriptor || (!component.empty() && component != c.descriptor->name)) continue;
            std::string v = c.descriptor->version ? c.descriptor->version : "";
            fact(options, fmt::format("version:{}:{}", f->name(), c.descriptor->name),
                 fmt::format("{} {}", f->name(), c.descriptor->name), version_part(v, part));
        }
    }
    if (!shown) {
        return {Errc::bad_param, fmt::format("--show-version {}: '{}' is not prte, all or a framework", spec, type)};
    }
    return {};
}

}  // namespace prte::info
