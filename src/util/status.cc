#include "util/status.h"

namespace prte {

const char* to_string(Errc code)
{
    switch (code) {
    case Errc::ok: return "success";
    case Errc::bad_param: return "bad parameter";
    case Errc::not_found: return "not found";
    case Errc::bad_file: return "malformed file";
    case Errc::refused: return "refused";
    case Errc::out_of_resource: return "out of resource";
    case Errc::take_next_option: return "take next option";
    case Errc::not_supported: return "not supported";
    case Errc::unreachable: return "unreachable";
    case Errc::internal: return "internal error";
    case Errc::cancelled: return "cancelled";
    case Errc::timed_out: return "timed out";
    case Errc::peer_ended: return "a participant ended";
    }
    return "unknown error";
}

}  // namespace prte
