#include "runtime/preload.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "rml/buffer.h"
#include "util/strings.h"

namespace prte::runtime {

std::vector<uint8_t> encode_preload(const PreloadFile& file)
{
    rml::Writer w;
    w.u8(file.binary ? 1 : 0).str(file.name).u32(file.mode).str(file.machine).u64(file.device).u64(file.inode);
    w.bytes(file.content);
    return w.ok() ? w.take() : std::vector<uint8_t>{};
}

Status decode_preload(const std::vector<uint8_t>& in, PreloadFile& out)
{
    rml::Reader r(in, "preloaded file");
    uint8_t binary = r.u8();
    if (r.ok() && binary > 1) r.fail(fmt::format("binary flag {}", binary));
    out.binary = binary == 1;
    out.name = r.name("preloaded file name", 4096);
    out.mode = r.u32();
    if (r.ok() && out.mode > 07777) r.fail(fmt::format("mode {:o}", out.mode));
    out.machine = r.str();
    out.device = r.u64();
    out.inode = r.u64();
    out.content = r.bytes();
    if (r.ok() && out.content.size() > kMaxPreloadBytes) r.fail(fmt::format("{} bytes", out.content.size()));
    if (r.ok()) {
        if (Status st = check_preload_name(out.name); !st) r.fail(st.message());
    }
    if (!r.ok()) return {Errc::bad_param, r.error()};
    return {};
}

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
