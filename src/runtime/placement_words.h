// The qualifier words of --map-by and --bind-to, in one place for the two that check them: prun,
// which refuses a bad one before submitting (tools/prun/prun_options.cc), and the DVM, which
// parses a spawn request's (pmix/spawn_translate.cc). Words are compared lowercased.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

namespace prte::runtime {

// --map-by ...:<qualifier> the DVM honours, and their list for messages.
inline constexpr std::string_view kMappingQualifiers[] = {"oversubscribe", "nooversubscribe", "span", "inherit",
                                                          "noinherit"};
inline constexpr const char kMappingQualifierList[] = "OVERSUBSCRIBE, NOOVERSUBSCRIBE, SPAN, INHERIT, NOINHERIT";
// PRRTE's other --map-by qualifiers (the name before any '='): refused by name, "not yet".
inline constexpr std::string_view kPrrteOnlyMappingQualifiers[] = {
    "pe", "nolocal", "hwtcpus", "corecpus", "file", "donotlaunch", "ordered", "display", "displaydevel", "device"};
// --bind-to <level>:<qualifier>.
inline constexpr std::string_view kBindingQualifiers[] = {"overload-allowed", "if-supported", "report"};
inline constexpr const char kBindingQualifierList[] = "overload-allowed, if-supported, report";

template <size_t N>
bool is_one_of(std::string_view word, const std::string_view (&words)[N])
{
    return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

inline bool is_prrte_only_mapping_qualifier(std::string_view word)
{
    return is_one_of(word.substr(0, word.find('=')), kPrrteOnlyMappingQualifiers);
}

}  // namespace prte::runtime
