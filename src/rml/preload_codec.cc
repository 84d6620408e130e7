#include "rml/preload_codec.h"

#include <fmt/format.h>

#include "rml/buffer.h"

namespace prte::rml {

std::vector<uint8_t> encode_preload(const runtime::PreloadFile& file)
{
    Writer w;
    w.u8(file.binary ? 1 : 0).str(file.name).u32(file.mode).str(file.machine).u64(file.device).u64(file.inode);
    w.bytes(file.content);
    return w.ok() ? w.take() : std::vector<uint8_t>{};
}

Status decode_preload(const std::vector<uint8_t>& in, runtime::PreloadFile& out)
{
    Reader r(in, "preloaded file");
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
    if (r.ok() && out.content.size() > runtime::kMaxPreloadBytes) r.fail(fmt::format("{} bytes", out.content.size()));
    if (r.ok()) {
        if (Status st = runtime::check_preload_name(out.name); !st) r.fail(st.message());
    }
    if (!r.ok()) return {Errc::bad_param, r.error()};
    return {};
}

}  // namespace prte::rml
