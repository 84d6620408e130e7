#include "mca/pmi/simple/pmi_simple_wire.h"

#include <fmt/format.h>

namespace prte::pmi::simple {
namespace {

// The v2 length field: 6 characters, digits possibly padded with spaces.
constexpr size_t kLengthField = 6;

bool valid_key(std::string_view key)
{
    if (key.empty()) return false;
    for (char c : key) {
        if (c == '=' || c == ';' || c == ' ' || c == '\n' || static_cast<unsigned char>(c) < 0x20) return false;
    }
    return true;
}

bool take_name(Command& out, std::string& error)
{
    if (out.attributes.empty() || (out.attributes.front().first != "cmd" && out.attributes.front().first != "mcmd")) {
        error = "it does not start with cmd=";
        return false;
    }
    out.multi_line = out.attributes.front().first == "mcmd";
    out.name = out.attributes.front().second;
    out.attributes.erase(out.attributes.begin());
    if (out.name.empty()) {
        error = "cmd= names no command";
        return false;
    }
    return true;
}

}  // namespace

const std::string* Command::find(std::string_view key) const
{
    for (const auto& [k, v] : attributes) {
        if (k == key) return &v;
    }
    return nullptr;
}

bool parse_v1_line(std::string_view line, Command& out, std::string& error)
{
    out = {};
    size_t pos = 0;
    while (pos < line.size()) {
        if (line[pos] == ' ') {
            ++pos;
            continue;
        }
        size_t end = line.find(' ', pos);
        if (end == std::string_view::npos) end = line.size();
        std::string_view token = line.substr(pos, end - pos);
        pos = end;
        size_t eq = token.find('=');
        if (eq == std::string_view::npos) {
            error = fmt::format("'{}' is not key=value", token.substr(0, 64));
            return false;
        }
        std::string_view key = token.substr(0, eq);
        if (!valid_key(key)) {
            error = fmt::format("'{}' is not a valid key", key.substr(0, 64));
            return false;
        }
        out.attributes.emplace_back(std::string(key), std::string(token.substr(eq + 1)));
    }
    return take_name(out, error);
}

bool parse_v2_payload(std::string_view payload, Command& out, std::string& error)
{
    out = {};
    size_t pos = 0;
    while (pos < payload.size()) {
        size_t eq = payload.find('=', pos);
        if (eq == std::string_view::npos) {
            error = fmt::format("'{}' is not key=value;", payload.substr(pos, 64));
            return false;
        }
        std::string_view key = payload.substr(pos, eq - pos);
        if (!valid_key(key)) {
            error = fmt::format("'{}' is not a valid key", key.substr(0, 64));
            return false;
        }
        std::string value;
        size_t i = eq + 1;
        bool ended = false;
        for (; i < payload.size(); ++i) {
            if (payload[i] != ';') {
                value.push_back(payload[i]);
                continue;
            }
            if (i + 1 < payload.size() && payload[i + 1] == ';') {  // ";;" is a ';' of the value
                value.push_back(';');
                ++i;
                continue;
            }
            ended = true;
            break;
        }
        if (!ended) {
            error = fmt::format("the value of {} does not end with ';'", key);
            return false;
        }
        out.attributes.emplace_back(std::string(key), std::move(value));
        pos = i + 1;
    }
    return take_name(out, error);
}

Decoder::Result Decoder::next(Command& out, std::string& error)
{
    return wire_ == Wire::v1 ? next_v1(out, error) : next_v2(out, error);
}

Decoder::Result Decoder::next_v1(Command& out, std::string& error)
{
    size_t newline = buffer_.find('\n');
    if (newline == std::string::npos) {
        if (buffer_.size() > max_command_) {
            error = fmt::format("a line longer than {} bytes", max_command_);
            return Result::malformed;
        }
        return Result::need_more;
    }
    if (buffer_.compare(0, 5, "mcmd=") == 0) {
        // A multi-line command: every line up to "endcmd" is one attribute.
        size_t end = buffer_.find("\nendcmd\n");
        if (end == std::string::npos) {
            if (buffer_.size() > max_command_) {
                error = fmt::format("an mcmd longer than {} bytes", max_command_);
                return Result::malformed;
            }
            return Result::need_more;
        }
        out = {};
        std::string_view body(buffer_.data(), end);
        size_t pos = 0;
        while (pos <= body.size()) {
            size_t nl = body.find('\n', pos);
            if (nl == std::string_view::npos) nl = body.size();
            std::string_view line = body.substr(pos, nl - pos);
            size_t eq = line.find('=');
            if (eq == std::string_view::npos || !valid_key(line.substr(0, eq))) {
                error = fmt::format("mcmd line '{}' is not key=value", line.substr(0, 64));
                return Result::malformed;
            }
            out.attributes.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
            pos = nl + 1;
        }
        buffer_.erase(0, end + 8);
        return take_name(out, error) ? Result::command : Result::malformed;
    }
    if (newline > max_command_) {
        error = fmt::format("a line longer than {} bytes", max_command_);
        return Result::malformed;
    }
    std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return parse_v1_line(line, out, error) ? Result::command : Result::malformed;
}

Decoder::Result Decoder::next_v2(Command& out, std::string& error)
{
    if (buffer_.size() < kLengthField) return Result::need_more;
    size_t length = 0;
    bool digits = false;
    for (size_t i = 0; i < kLengthField; ++i) {
        char c = buffer_[i];
        if (c >= '0' && c <= '9') {
            length = length * 10 + static_cast<size_t>(c - '0');
            digits = true;
        } else if (c != ' ') {
            error = fmt::format("the length field '{}' is not a number", buffer_.substr(0, kLengthField));
            return Result::malformed;
        }
    }
    if (!digits || length == 0 || length > max_command_) {
        error = fmt::format("a command of {} bytes (at most {})", length, max_command_);
        return Result::malformed;
    }
    if (buffer_.size() < kLengthField + length) return Result::need_more;
    std::string payload = buffer_.substr(kLengthField, length);
    buffer_.erase(0, kLengthField + length);
    return parse_v2_payload(payload, out, error) ? Result::command : Result::malformed;
}

std::string encode(Wire wire, std::string_view name, const Attributes& attributes)
{
    std::string body;
    if (wire == Wire::v1) {
        body.append("cmd=").append(name);
        for (const auto& [k, v] : attributes) body.append(" ").append(k).append("=").append(v);
        body.push_back('\n');
        return body;
    }
    body.append("cmd=").append(name).append(";");
    for (const auto& [k, v] : attributes) {
        body.append(k).append("=");
        for (char c : v) {
            body.push_back(c);
            if (c == ';') body.push_back(';');
        }
        body.append(";");
    }
    return fmt::format("{:<6}", body.size()) + body;
}

}  // namespace prte::pmi::simple
