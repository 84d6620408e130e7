#include "runtime/env_edit.h"

#include <vector>

namespace prte::runtime {
namespace {

constexpr char kMark = '\x1f';

const char* kind_word(EnvEdit::Kind kind)
{
    switch (kind) {
    case EnvEdit::prepend: return "prepend";
    case EnvEdit::append: return "append";
    default: return "unset";
    }
}

}  // namespace

// \x1f<kind>\x1f<name>\x1f<separator>\x1f<value>
std::string encode_env_edit(const EnvEdit& edit)
{
    std::string out(1, kMark);
    out += kind_word(edit.kind);
    out += kMark;
    out += edit.name;
    out += kMark;
    out += edit.separator;
    out += kMark;
    out += edit.value;
    return out;
}

std::optional<EnvEdit> decode_env_edit(std::string_view entry)
{
    if (entry.empty() || entry[0] != kMark) return std::nullopt;
    std::vector<std::string_view> parts;
    size_t start = 1;
    // The value comes last and may hold anything: split only the first four fields.
    while (parts.size() < 3) {
        size_t end = entry.find(kMark, start);
        if (end == std::string_view::npos) return std::nullopt;
        parts.push_back(entry.substr(start, end - start));
        start = end + 1;
    }
    EnvEdit edit;
    if (parts[0] == "unset") {
        edit.kind = EnvEdit::unset;
    } else if (parts[0] == "prepend") {
        edit.kind = EnvEdit::prepend;
    } else if (parts[0] == "append") {
        edit.kind = EnvEdit::append;
    } else {
        return std::nullopt;
    }
    if (parts[1].empty() || parts[2].size() != 1) return std::nullopt;
    edit.name = parts[1];
    edit.separator = parts[2][0];
    edit.value = entry.substr(start);
    return edit;
}

std::string edited_value(const EnvEdit& edit, const std::optional<std::string>& old_value)
{
    if (!old_value || old_value->empty()) return edit.value;
    if (edit.kind == EnvEdit::prepend) return edit.value + edit.separator + *old_value;
    return *old_value + edit.separator + edit.value;
}

}  // namespace prte::runtime
