#include "util/hostlist.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>

#include "util/strings.h"

namespace prte::util {
namespace {

// More digits than this could overflow a uint64_t, and no host is numbered that high.
constexpr size_t kMaxDigits = 18;

// One "a-b" (or "a") inside a bracket; every number is printed with `width` digits, zero-padded.
struct NumberRange {
    uint64_t first = 0;
    uint64_t last = 0;
    size_t width = 0;

    uint64_t count() const { return last - first + 1; }
};

// A name is literal text and brackets in turn; a literal segment has no ranges.
struct Segment {
    std::string literal;
    std::vector<NumberRange> ranges;
    bool is_bracket = false;

    // Saturates just past the expansion limit, so that many huge ranges cannot wrap around.
    uint64_t count() const
    {
        if (!is_bracket) return 1;
        uint64_t total = 0;
        for (const auto& r : ranges) total = std::min<uint64_t>(total + r.count(), kMaxHostlistExpansion + 1);
        return total;
    }
};

Status entry_error(std::string_view entry, std::string_view reason)
{
    return {Errc::bad_param, fmt::format("bad host name '{}': {}", entry, reason)};
}

bool all_digits(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::string> parse_bound(std::string_view text, uint64_t& value)
{
    if (!all_digits(text)) return fmt::format("'{}' is not a number", text);
    if (text.size() > kMaxDigits) return fmt::format("'{}' is too large a number", text);
    value = 0;
    for (char c : text) value = value * 10 + static_cast<uint64_t>(c - '0');
    return std::nullopt;
}

// Parses the text between '[' and ']' into ranges, or returns why it cannot.
std::optional<std::string> parse_bracket(std::string_view body, std::vector<NumberRange>& ranges)
{
    if (body.empty()) return std::string("empty brackets '[]'");
    for (const auto& part : split(body, ',')) {
        std::string_view element = part;
        if (element.empty()) return fmt::format("empty element in '[{}]'", body);
        NumberRange range;
        size_t dash = element.find('-');
        std::string_view first = element.substr(0, dash);
        std::string_view last = dash == std::string_view::npos ? first : element.substr(dash + 1);
        if (dash != std::string_view::npos && last.find('-') != std::string_view::npos)
            return fmt::format("'{}' is not a number or a range a-b", element);
        if (auto why = parse_bound(first, range.first)) return why;
        if (auto why = parse_bound(last, range.last)) return why;
        if (range.first > range.last)
            return fmt::format("range {}-{} runs backwards", first, last);
        // The first bound's width sets the padding: "01-10" gives 01..10, "1-10" gives 1..10.
        range.width = first.size();
        ranges.push_back(range);
    }
    return std::nullopt;
}

std::optional<std::string> parse_segments(std::string_view entry, std::vector<Segment>& segments)
{
    size_t pos = 0;
    while (pos < entry.size()) {
        size_t open = entry.find_first_of("[]", pos);
        if (open == std::string_view::npos) {
            segments.push_back({std::string(entry.substr(pos)), {}, false});
            break;
        }
        if (entry[open] == ']') return fmt::format("']' at position {} has no matching '['", open + 1);
        if (open > pos) segments.push_back({std::string(entry.substr(pos, open - pos)), {}, false});
        size_t close = entry.find_first_of("[]", open + 1);
        if (close == std::string_view::npos) return fmt::format("'[' at position {} is never closed", open + 1);
        if (entry[close] == '[') return fmt::format("'[' at position {} is inside another bracket", close + 1);
        Segment bracket;
        bracket.is_bracket = true;
        if (auto why = parse_bracket(entry.substr(open + 1, close - open - 1), bracket.ranges)) return why;
        segments.push_back(std::move(bracket));
        pos = close + 1;
    }
    return std::nullopt;
}

// The number of names the segments give, or nullopt once it passes the limit.
std::optional<uint64_t> expansion_size(const std::vector<Segment>& segments)
{
    uint64_t total = 1;
    for (const auto& segment : segments) {
        uint64_t count = segment.count();
        if (count > kMaxHostlistExpansion || total * count > kMaxHostlistExpansion) return std::nullopt;
        total *= count;
    }
    return total;
}

// Appends every value of one segment to every name so far: the cartesian product, earlier
// segments varying slowest.
std::vector<std::string> extend_names(const std::vector<std::string>& names, const Segment& segment)
{
    if (!segment.is_bracket) {
        std::vector<std::string> out = names;
        for (auto& name : out) name += segment.literal;
        return out;
    }
    std::vector<std::string> out;
    out.reserve(names.size() * segment.count());
    for (const auto& name : names) {
        for (const auto& range : segment.ranges) {
            for (uint64_t n = range.first; n <= range.last; ++n)
                out.push_back(fmt::format("{}{:0{}}", name, n, range.width));
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> split_hostlist(std::string_view list)
{
    std::vector<std::string> entries;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
        if (i < list.size()) {
            if (list[i] == '[') ++depth;
            else if (list[i] == ']' && depth > 0) --depth;
            if (list[i] != ',' || depth > 0) continue;
        }
        entries.emplace_back(trim(list.substr(start, i - start)));
        start = i + 1;
    }
    return entries;
}

Status expand_hostname(std::string_view entry, std::vector<std::string>& out)
{
    entry = trim(entry);
    if (entry.empty()) return {Errc::bad_param, "empty host name"};
    if (std::any_of(entry.begin(), entry.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
        return entry_error(entry, "a host name cannot contain spaces");
    std::vector<Segment> segments;
    if (auto why = parse_segments(entry, segments)) return entry_error(entry, *why);
    if (!expansion_size(segments))
        return entry_error(entry, fmt::format("expands to more than {} names", kMaxHostlistExpansion));
    std::vector<std::string> names{""};
    for (const auto& segment : segments) names = extend_names(names, segment);
    out.insert(out.end(), std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()));
    return {};
}

Status expand_hostlist(std::string_view list, std::vector<std::string>& out)
{
    std::vector<std::string> names;
    for (const auto& entry : split_hostlist(list)) {
        if (entry.empty()) return {Errc::bad_param, fmt::format("empty entry in host list '{}'", list)};
        if (Status st = expand_hostname(entry, names); !st) return st;
    }
    out.insert(out.end(), std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()));
    return {};
}

std::string compress_hostlist(const std::vector<std::string>& names)
{
    // A group is a prefix and a digit count; its numbers are printed back with that width.
    struct Group {
        std::string prefix;
        size_t width = 0;
        std::vector<uint64_t> numbers;
    };
    std::vector<Group> groups;
    std::map<std::pair<std::string, size_t>, size_t> group_index;
    // In first-appearance order: a group's index, or a name passed through as is.
    std::vector<std::pair<std::optional<size_t>, std::string>> items;

    for (const auto& name : names) {
        size_t digits_at = name.size();
        while (digits_at > 0 && std::isdigit(static_cast<unsigned char>(name[digits_at - 1]))) --digits_at;
        size_t width = name.size() - digits_at;
        bool groupable = width > 0 && width <= kMaxDigits && name.find_first_of("[],") == std::string::npos;
        if (!groupable) {
            items.push_back({std::nullopt, name});
            continue;
        }
        auto key = std::make_pair(name.substr(0, digits_at), width);
        auto [it, inserted] = group_index.try_emplace(key, groups.size());
        if (inserted) {
            groups.push_back({key.first, width, {}});
            items.push_back({it->second, {}});
        }
        uint64_t value = 0;
        parse_bound(std::string_view(name).substr(digits_at), value);
        groups[it->second].numbers.push_back(value);
    }

    std::vector<std::string> parts;
    for (const auto& [index, name] : items) {
        if (!index) {
            parts.push_back(name);
            continue;
        }
        Group& group = groups[*index];
        std::sort(group.numbers.begin(), group.numbers.end());
        group.numbers.erase(std::unique(group.numbers.begin(), group.numbers.end()), group.numbers.end());
        if (group.numbers.size() == 1) {
            parts.push_back(fmt::format("{}{:0{}}", group.prefix, group.numbers[0], group.width));
            continue;
        }
        std::vector<std::string> ranges;
        for (size_t i = 0; i < group.numbers.size();) {
            size_t j = i;
            while (j + 1 < group.numbers.size() && group.numbers[j + 1] == group.numbers[j] + 1) ++j;
            if (j == i) ranges.push_back(fmt::format("{:0{}}", group.numbers[i], group.width));
            else
                ranges.push_back(fmt::format("{:0{}}-{:0{}}", group.numbers[i], group.width, group.numbers[j],
                                             group.width));
            i = j + 1;
        }
        parts.push_back(fmt::format("{}[{}]", group.prefix, join(ranges, ",")));
    }
    return join(parts, ",");
}

}  // namespace prte::util
