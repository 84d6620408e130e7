// How a preloaded file (runtime/preload.h) travels: in prun's spawn request (pmix::kPreloadFile)
// and in the launch message to the daemons that host its app's processes (plm/base). Here, on the
// rml floor, because it is rml's encoding; the file itself is a runtime type.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/preload.h"
#include "util/status.h"

namespace prte::rml {

std::vector<uint8_t> encode_preload(const runtime::PreloadFile& file);
// Checks every field: the name (runtime::check_preload_name), the mode, the size.
Status decode_preload(const std::vector<uint8_t>& in, runtime::PreloadFile& out);

}  // namespace prte::rml
