// String helpers the parsers share: splitting lists, trimming, strict number parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace prte::util {

// Splits on every occurrence of `sep`; empty fields are kept unless `skip_empty`.
std::vector<std::string> split(std::string_view text, char sep, bool skip_empty = false);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);

// Whole-string parses: trailing garbage, signs where not allowed, or overflow give nullopt.
std::optional<int64_t> parse_int(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);

}  // namespace prte::util
