#include "runtime/hostfile.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "util/hostlist.h"
#include "util/strings.h"

namespace prte::runtime {
using util::expand_hostname;
using util::parse_int;
using util::split;
using util::split_hostlist;
using util::trim;

namespace {

// Collects the nodes of one file or list, merging repeated names (rules in hostfile.h).
class NodeMerger {
  public:
    // Adds one mention of `name`; returns why the merged node is inconsistent, if it is.
    std::optional<std::string> add(const std::string& name, std::optional<int> slots, std::optional<int> max_slots)
    {
        auto [it, inserted] = index_.try_emplace(name, nodes_.size());
        if (inserted) {
            runtime::Node node;
            node.name = name;
            nodes_.push_back(std::move(node));
            explicit_count_.push_back(false);
        }
        runtime::Node& node = nodes_[it->second];
        if (slots) {
            node.slots = *slots;
            node.slots_given = true;
            explicit_count_[it->second] = true;
        } else if (!inserted && !explicit_count_[it->second]) {
            // A repeated bare name is a count the user wrote out, so it is as good as slots=N.
            ++node.slots;
            node.slots_given = true;
        }
        if (max_slots) node.slots_max = *max_slots;
        if (node.slots_max > 0 && node.slots > node.slots_max)
            return fmt::format("host {} now has slots={}, more than its max_slots={}", name, node.slots,
                               node.slots_max);
        mentions_.push_back(name);
        return std::nullopt;
    }

    std::vector<runtime::Node>& nodes() { return nodes_; }
    std::vector<std::string>& mentions() { return mentions_; }

  private:
    std::vector<runtime::Node> nodes_;
    std::vector<std::string> mentions_;  // every name added, in order, repeats kept
    std::vector<bool> explicit_count_;  // per node: has a slots=/:N been given
    std::map<std::string, size_t> index_;
};

// No real node has more slots than this; a larger number is a typo, and keeps the int safe.
constexpr int64_t kMaxSlotCount = 1'000'000'000;

// A positive slot count, or why `text` is not one; `what` quotes the token it came from.
std::optional<std::string> parse_count(std::string_view text, std::string_view what, int& value)
{
    auto parsed = parse_int(text);
    if (!parsed) return fmt::format("'{}': '{}' is not a whole number", what, text);
    if (*parsed < 1) return fmt::format("'{}': the count must be at least 1", what);
    if (*parsed > kMaxSlotCount) return fmt::format("'{}': the count must be at most {}", what, kMaxSlotCount);
    value = static_cast<int>(*parsed);
    return std::nullopt;
}

// "user@host" is accepted for compatibility; only the host matters here.
std::string_view strip_user(std::string_view name)
{
    size_t at = name.rfind('@');
    return at == std::string_view::npos ? name : name.substr(at + 1);
}

// Removes the whitespace around each '=' so that "slots = 4" is one token, like "slots=4".
std::string join_around_equals(std::string_view line)
{
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            size_t next = i;
            while (next < line.size() && std::isspace(static_cast<unsigned char>(line[next]))) ++next;
            bool before_equals = next < line.size() && line[next] == '=';
            bool after_equals = !out.empty() && out.back() == '=';
            if (!before_equals && !after_equals) out += ' ';
            i = next - 1;
            continue;
        }
        out += c;
    }
    return out;
}

std::vector<std::string> tokens_of(std::string_view line)
{
    std::vector<std::string> tokens;
    for (auto& token : split(join_around_equals(line), ' ', true)) tokens.push_back(std::move(token));
    return tokens;
}

struct LineKeywords {
    std::optional<int> slots;
    std::optional<int> max_slots;
};

std::optional<std::string> parse_keyword(const std::string& token, LineKeywords& keywords)
{
    size_t equals = token.find('=');
    if (equals == std::string::npos)
        return fmt::format("unexpected '{}': one host per line, followed only by slots=N or max_slots=N", token);
    std::string key = token.substr(0, equals);
    std::string_view value = std::string_view(token).substr(equals + 1);
    int count = 0;
    if (key == "slots" || key == "count") {
        if (auto why = parse_count(value, token, count)) return why;
        keywords.slots = count;
    } else if (key == "max_slots" || key == "max-slots") {
        if (auto why = parse_count(value, token, count)) return why;
        keywords.max_slots = count;
    } else {
        return fmt::format("unknown keyword '{}' (expected slots=N or max_slots=N)", token);
    }
    return std::nullopt;
}

// Parses one line that is not blank or a comment into `merger`; returns the reason it is bad.
std::optional<std::string> parse_line(std::string_view line, NodeMerger& merger)
{
    std::vector<std::string> tokens = tokens_of(line);
    const std::string& first = tokens.front();
    if (first.find('=') != std::string::npos)
        return fmt::format("'{}' comes before any host name", first);
    std::string_view host = strip_user(first);
    if (host.empty()) return fmt::format("empty host name in '{}'", first);

    LineKeywords keywords;
    for (size_t i = 1; i < tokens.size(); ++i) {
        if (auto why = parse_keyword(tokens[i], keywords)) return why;
    }
    if (keywords.slots && keywords.max_slots && *keywords.max_slots < *keywords.slots)
        return fmt::format("max_slots={} is less than slots={}", *keywords.max_slots, *keywords.slots);

    std::vector<std::string> names;
    if (Status st = expand_hostname(host, names); !st) return st.message();
    for (const auto& name : names) {
        if (auto why = merger.add(name, keywords.slots, keywords.max_slots)) return why;
    }
    return std::nullopt;
}

// One "--host" entry, "name[:slots]".
std::optional<std::string> parse_host_entry(std::string_view entry, NodeMerger& merger)
{
    std::string_view host = entry;
    std::optional<int> slots;
    size_t colon = entry.rfind(':');
    if (colon != std::string_view::npos) {
        host = entry.substr(0, colon);
        std::string_view count_text = entry.substr(colon + 1);
        if (count_text.empty()) return fmt::format("bad host entry '{}': no slot count after ':'", entry);
        int count = 0;
        if (auto why = parse_count(count_text, entry, count)) return "bad host entry " + *why;
        slots = count;
    }
    host = strip_user(host);
    if (host.empty()) return fmt::format("bad host entry '{}': empty host name", entry);
    std::vector<std::string> names;
    if (Status st = expand_hostname(host, names); !st) return st.message();
    for (const auto& name : names) {
        if (auto why = merger.add(name, slots, std::nullopt)) return why;
    }
    return std::nullopt;
}

template <typename T>
void append(std::vector<T>& from, std::vector<T>& out)
{
    out.insert(out.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

Status parse_hostfile(std::string_view text, std::string_view source, std::vector<runtime::Node>& out)
{
    std::vector<std::string> mentions;
    return parse_hostfile(text, source, out, mentions);
}

Status parse_hostfile(std::string_view text, std::string_view source, std::vector<runtime::Node>& out,
                      std::vector<std::string>& mentions)
{
    NodeMerger merger;
    size_t line_number = 0;
    for (const auto& raw : split(text, '\n')) {
        ++line_number;
        std::string_view line = raw;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        if (auto why = parse_line(line, merger))
            return {Errc::bad_file, fmt::format("{}:{}: {}", source, line_number, *why)};
    }
    append(merger.nodes(), out);
    append(merger.mentions(), mentions);
    return {};
}

Status read_hostfile(const std::string& path, std::vector<runtime::Node>& out)
{
    std::vector<std::string> mentions;
    return read_hostfile(path, out, mentions);
}

Status read_hostfile(const std::string& path, std::vector<runtime::Node>& out, std::vector<std::string>& mentions)
{
    auto failure = [&path](int error) {
        return Status(error == ENOENT ? Errc::not_found : Errc::bad_file,
                      fmt::format("cannot read hostfile '{}': {}", path, std::strerror(error)));
    };
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return failure(errno);
    std::string text;
    char buffer[8192];
    while (true) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int error = errno;
            ::close(fd);
            return failure(error);
        }
        if (n == 0) break;
        text.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    return parse_hostfile(text, path, out, mentions);
}

Status parse_host_list(std::string_view list, std::vector<runtime::Node>& out)
{
    return parse_host_list(std::vector<std::string>{std::string(list)}, out);
}

Status parse_host_list(const std::vector<std::string>& lists, std::vector<runtime::Node>& out)
{
    std::vector<std::string> mentions;
    return parse_host_list(lists, out, mentions);
}

Status parse_host_list(const std::vector<std::string>& lists, std::vector<runtime::Node>& out,
                       std::vector<std::string>& mentions)
{
    NodeMerger merger;
    for (const auto& list : lists) {
        for (const auto& entry : split_hostlist(list)) {
            if (entry.empty()) return {Errc::bad_param, fmt::format("empty entry in host list '{}'", list)};
            if (auto why = parse_host_entry(entry, merger)) return {Errc::bad_param, *why};
        }
    }
    append(merger.nodes(), out);
    append(merger.mentions(), mentions);
    return {};
}

bool names_local_node(std::string_view name) { return name == "localhost"; }

}  // namespace prte::runtime
