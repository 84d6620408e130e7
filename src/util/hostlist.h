// Host-list ranges in PRRTE's notation: "node[01-08]", "n[1-3,7]", "rack[1-2]-n[01-02]", and
// comma-separated lists of those ("a,node[1-4],b"). A bracket holds numbers and ranges separated by
// commas; each number keeps the width of the range's first bound, so "node[01-10]" gives node01 to
// node10. Several brackets in one name expand to their cartesian product, the first bracket
// varying slowest ("rack[1-2]-n[1-2]" is rack1-n1, rack1-n2, rack2-n1, rack2-n2).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace prte::util {

// No single entry may expand to more names than this: a typo such as "n[1-1000000000]" should be
// an error, not an attempt to allocate a billion strings.
inline constexpr size_t kMaxHostlistExpansion = 1'000'000;

// Splits a list at the commas that are outside brackets ("a,n[1,3],b" is "a", "n[1,3]", "b"),
// trimming whitespace around each entry. Brackets are not checked here.
std::vector<std::string> split_hostlist(std::string_view list);

// Expands one entry and appends the names to `out`, in order, duplicates kept. On error `out` is
// unchanged and the Status (Errc::bad_param) names the entry and what is wrong with it.
Status expand_hostname(std::string_view entry, std::vector<std::string>& out);

// Expands every entry of a comma-separated list; an empty entry ("a,,b") is an error.
Status expand_hostlist(std::string_view list, std::vector<std::string>& out);

// The reverse, for messages: "node01,node02,node03,node07,login" becomes
// "node[01-03,07],login". Names that end in digits and share the prefix and the digit count are
// grouped (in the order each group first appears, numbers sorted, duplicates dropped); everything
// else is passed through.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace prte::util
