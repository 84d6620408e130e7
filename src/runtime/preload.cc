#include "runtime/preload.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::runtime {

std::string local_machine()
{
    std::string boot_id;
    if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
        char line[64] = {};
        if (std::fgets(line, sizeof line, f)) boot_id = line;
        std::fclose(f);
    }
    while (!boot_id.empty() && (boot_id.back() == '\n' || boot_id.back() == ' ')) boot_id.pop_back();
    if (boot_id.empty()) return {};
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return fmt::format("{} {}", host, boot_id);
}

Status check_preload_name(const std::string& name)
{
    if (name.empty()) return {Errc::bad_param, "a preloaded file has no name"};
    if (name.front() == '/') return {Errc::bad_param, fmt::format("preloaded file '{}': not a relative path", name)};
    for (const std::string& part : util::split(name, '/')) {
        if (part.empty() || part == "." || part == "..") {
            return {Errc::bad_param,
                    fmt::format("preloaded file '{}': a path inside the working directory may not have an empty, "
                                "'.' or '..' component",
                                name)};
        }
    }
    return {};
}

}  // namespace prte::runtime
