#include "util/strings.h"

#include <cctype>
#include <charconv>

namespace prte::util {

std::vector<std::string> split(std::string_view text, char sep, bool skip_empty)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        size_t pos = text.find(sep, start);
        std::string_view field = text.substr(start, pos == std::string_view::npos ? pos : pos - start);
        if (!(skip_empty && field.empty())) out.emplace_back(field);
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep)
{
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

bool starts_with(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

std::optional<int64_t> parse_int(std::string_view text)
{
    text = trim(text);
    if (text.empty()) return std::nullopt;
    if (text.front() == '+') text.remove_prefix(1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<bool> parse_bool(std::string_view text)
{
    std::string lower;
    for (char c : trim(text)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "1" || lower == "true" || lower == "yes" || lower == "on" || lower == "t" || lower == "y")
        return true;
    if (lower == "0" || lower == "false" || lower == "no" || lower == "off" || lower == "f" || lower == "n")
        return false;
    return std::nullopt;
}

}  // namespace prte::util
