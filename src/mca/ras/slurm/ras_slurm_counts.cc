#include "mca/ras/slurm/ras_slurm_counts.h"

#include <charconv>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::ras::slurm {
namespace {

// A Slurm job never spans more nodes than this; a larger repeat is a corrupt variable.
constexpr long kMaxRepeat = 1'000'000;

bool parse_number(std::string_view text, long& value)
{
    if (text.empty()) return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Status expand_counts(std::string_view text, std::vector<int>& out)
{
    auto bad = [&](std::string_view entry, const char* what) {
        return Status(Errc::bad_param, fmt::format("'{}': entry '{}' {} (expected counts such as '2(x3),1')", text,
                                                   entry, what));
    };
    if (text.empty()) return {Errc::bad_param, "empty per-node count list"};
    std::vector<int> counts;
    for (const std::string& raw : util::split(std::string(text), ',', false)) {
        std::string_view entry = raw;
        long repeat = 1;
        size_t open = entry.find('(');
        std::string_view count_text = entry.substr(0, open);
        if (open != std::string_view::npos) {
            if (entry.back() != ')' || entry.substr(open, 2) != "(x") return bad(entry, "has a malformed repeat");
            std::string_view repeat_text = entry.substr(open + 2, entry.size() - open - 3);
            if (!parse_number(repeat_text, repeat) || repeat < 1 || repeat > kMaxRepeat) {
                return bad(entry, "has a repeat that is not a number from 1 to 1000000");
            }
        }
        long count = 0;
        if (!parse_number(count_text, count) || count < 0 || count > 1'000'000) return bad(entry, "is not a count");
        counts.insert(counts.end(), static_cast<size_t>(repeat), static_cast<int>(count));
    }
    out.insert(out.end(), counts.begin(), counts.end());
    return {};
}

}  // namespace prte::ras::slurm
