#include "util/xml.h"

#include <fmt/format.h>

namespace prte::util {

std::string xml_escape(std::string_view text, bool attribute)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (c == '&') {
            out += "&amp;";
        } else if (c == '<') {
            out += "&lt;";
        } else if (c == '>') {
            out += "&gt;";
        } else if (c == '"' && attribute) {
            out += "&quot;";
        } else if (byte < 32 || byte == 127) {
            out += fmt::format("&#{:03d};", byte);  // a newline is "&#010;", as Open MPI writes it
        } else {
            out += c;  // UTF-8 passes as it is
        }
    }
    return out;
}

}  // namespace prte::util
