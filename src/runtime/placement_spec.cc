#include "runtime/placement_spec.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::runtime {
namespace {

std::string lower(std::string_view text)
{
    std::string out(util::trim(text));
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

template <typename Value>
struct Word {
    const char* name;
    Value value;
};

// The word's value: an exact name, else the one value every name it begins is spelled for (PRRTE
// takes "L3" for l3cache). nullopt when it names nothing or could be two things.
template <typename Value, size_t N>
std::optional<Value> match(const std::string& word, const Word<Value> (&words)[N])
{
    if (word.empty()) return std::nullopt;
    for (const auto& w : words) {
        if (word == w.name) return w.value;
    }
    std::optional<Value> found;
    for (const auto& w : words) {
        if (std::string_view(w.name).substr(0, word.size()) != word) continue;
        if (found && !(*found == w.value)) return std::nullopt;
        found = w.value;
    }
    return found;
}

const Word<MapBy> kMapWords[] = {
    {"slot", MapBy::slot},         {"slots", MapBy::slot},       {"hwthread", MapBy::hwthread},
    {"hwthreads", MapBy::hwthread}, {"core", MapBy::core},        {"cores", MapBy::core},
    {"l1cache", MapBy::l1cache},   {"l2cache", MapBy::l2cache},  {"l3cache", MapBy::l3cache},
    {"numa", MapBy::numa},         {"package", MapBy::package},  {"packages", MapBy::package},
    {"socket", MapBy::package},    {"sockets", MapBy::package},  {"node", MapBy::node},
    {"nodes", MapBy::node},        {"seq", MapBy::seq},          {"ppr", MapBy::ppr},
    {"rankfile", MapBy::rankfile}, {"pe-list", MapBy::pe_list},
};

// What ppr:N:<object> counts.
const Word<MapBy> kPprObjects[] = {
    {"node", MapBy::node},         {"package", MapBy::package}, {"socket", MapBy::package},
    {"numa", MapBy::numa},         {"l3cache", MapBy::l3cache}, {"l2cache", MapBy::l2cache},
    {"l1cache", MapBy::l1cache},   {"core", MapBy::core},       {"hwthread", MapBy::hwthread},
};

enum class MapQualifier { pe, span, oversubscribe, nooversubscribe, nolocal, hwtcpus, corecpus, inherit, noinherit,
                          file, donotlaunch, ordered, display, displaydevel, displaytopo, displayalloc };
const Word<MapQualifier> kMapQualifierWords[] = {
    {"pe", MapQualifier::pe},
    {"span", MapQualifier::span},
    {"oversubscribe", MapQualifier::oversubscribe},
    {"nooversubscribe", MapQualifier::nooversubscribe},
    {"nolocal", MapQualifier::nolocal},
    {"hwtcpus", MapQualifier::hwtcpus},
    {"corecpus", MapQualifier::corecpus},
    {"inherit", MapQualifier::inherit},
    {"noinherit", MapQualifier::noinherit},
    {"file", MapQualifier::file},
    {"donotlaunch", MapQualifier::donotlaunch},
    {"ordered", MapQualifier::ordered},
    {"display", MapQualifier::display},
    {"displaydevel", MapQualifier::displaydevel},
    {"displaytopo", MapQualifier::displaytopo},
    {"displayalloc", MapQualifier::displayalloc},
};

const Word<RankBy> kRankWords[] = {
    {"slot", RankBy::slot},       {"node", RankBy::node},       {"fill", RankBy::fill},
    {"span", RankBy::span},       {"hwthread", RankBy::hwthread}, {"core", RankBy::core},
    {"l1cache", RankBy::l1cache}, {"l2cache", RankBy::l2cache}, {"l3cache", RankBy::l3cache},
    {"numa", RankBy::numa},       {"package", RankBy::package}, {"socket", RankBy::package},
};

const Word<BindTo> kBindWords[] = {
    {"none", BindTo::none},       {"hwthread", BindTo::hwthread}, {"hwthreads", BindTo::hwthread},
    {"core", BindTo::core},       {"cores", BindTo::core},        {"l1cache", BindTo::l1cache},
    {"l2cache", BindTo::l2cache}, {"l3cache", BindTo::l3cache},   {"numa", BindTo::numa},
    {"package", BindTo::package}, {"socket", BindTo::package},
};

enum class BindQualifier { overload_allowed, no_overload, if_supported, report };
const Word<BindQualifier> kBindQualifierWords[] = {
    {"overload-allowed", BindQualifier::overload_allowed},
    {"no-overload", BindQualifier::no_overload},
    {"if-supported", BindQualifier::if_supported},
    {"report", BindQualifier::report},
};

Status bad(const std::string& why) { return {Errc::bad_param, why}; }

// "0,2-3" into logical ids, each once, in the order written.
Status parse_pe_list(const std::string& text, std::vector<int>& out)
{
    std::vector<int> ids;
    std::set<int> seen;
    for (const std::string& part : util::split(text, ',')) {
        std::string p(util::trim(part));
        size_t dash = p.find('-');
        auto first = util::parse_int(p.substr(0, dash));
        auto last = dash == std::string::npos ? first : util::parse_int(p.substr(dash + 1));
        if (!first || !last || *first < 0 || *last < *first || *last > 65535) {
            return bad(fmt::format("pe-list '{}': '{}' is not a CPU id or a range a-b of them", text, p));
        }
        for (int64_t id = *first; id <= *last; ++id) {
            if (seen.insert(static_cast<int>(id)).second) ids.push_back(static_cast<int>(id));
        }
    }
    if (ids.empty()) return bad("pe-list needs CPU ids, e.g. pe-list=0,2-3");
    out = std::move(ids);
    return {};
}

Status apply_map_qualifier(const std::string& raw, MappingPolicy& m, JobReports& reports)
{
    std::string word = lower(raw);
    size_t eq = word.find('=');
    std::string name = word.substr(0, eq);
    std::string value = eq == std::string::npos ? std::string() : std::string(util::trim(raw.substr(raw.find('=') + 1)));
    auto q = match(name, kMapQualifierWords);
    if (!q) {
        return bad(fmt::format("unknown qualifier '{}' (valid: {})", util::trim(raw), kMapQualifiers));
    }
    const bool takes_value = *q == MapQualifier::pe || *q == MapQualifier::file;
    if (takes_value && value.empty()) return bad(fmt::format("qualifier '{}' needs a value ({}=...)", util::trim(raw), name));
    if (!takes_value && eq != std::string::npos) return bad(fmt::format("qualifier '{}' takes no value", util::trim(raw)));
    switch (*q) {
    case MapQualifier::pe: {
        auto n = util::parse_int(value);
        if (!n || *n <= 0 || *n > 4096) return bad(fmt::format("PE={}: expected a positive number of CPUs per process", value));
        m.pes_per_proc = static_cast<int>(*n);
        break;
    }
    case MapQualifier::span: m.span = 1; break;
    case MapQualifier::oversubscribe: m.oversubscribe = true; break;
    case MapQualifier::nooversubscribe: m.oversubscribe = false; break;
    case MapQualifier::nolocal: m.nolocal = true; break;
    case MapQualifier::hwtcpus: m.hwtcpus = true; break;
    case MapQualifier::corecpus: m.hwtcpus = false; break;
    case MapQualifier::inherit: m.inherit = true; break;
    case MapQualifier::noinherit: m.inherit = false; break;
    case MapQualifier::file: m.file = value; break;
    case MapQualifier::donotlaunch: m.donotlaunch = true; break;
    case MapQualifier::ordered: m.pe_list_ordered = true; break;
    case MapQualifier::display:
    case MapQualifier::displaydevel: reports.map = true; break;
    case MapQualifier::displaytopo: reports.topology = true; break;
    case MapQualifier::displayalloc: reports.allocation = true; break;
    }
    return {};
}

}  // namespace

Status parse_map_by(const std::string& text, MappingPolicy& mapping, JobReports& reports)
{
    MappingPolicy m = mapping;
    JobReports r = reports;
    std::vector<std::string> words = util::split(text, ':');
    if (words.empty()) return bad(fmt::format("expected a policy ({})", kMapPolicies));
    std::string head = lower(words[0]);
    size_t qualifiers_at = 1;
    if (head.rfind("pe-list=", 0) == 0) {
        m.by = MapBy::pe_list;
        if (Status st = parse_pe_list(head.substr(8), m.pe_list); !st) return st;
    } else if (!head.empty()) {
        auto by = match(head, kMapWords);
        if (!by) {
            if (head == "board" || head == "dist") {
                return bad(fmt::format("PRRTE's '{}' policy is not offered by this DVM (valid: {})", words[0], kMapPolicies));
            }
            return bad(fmt::format("unknown policy '{}' (valid: {})", util::trim(words[0]), kMapPolicies));
        }
        m.by = *by;
        if (*by == MapBy::pe_list) return bad("pe-list needs its CPUs: pe-list=0,2-3");
        if (*by == MapBy::ppr) {
            auto count = words.size() > 1 ? util::parse_int(words[1]) : std::nullopt;
            if (!count || *count <= 0 || *count > 1 << 20) {
                return bad("ppr needs a positive count and an object: ppr:N:<object>, e.g. ppr:2:package");
            }
            if (words.size() < 3) return bad(fmt::format("ppr:{} needs an object after it, e.g. ppr:{}:package", *count, *count));
            auto object = match(lower(words[2]), kPprObjects);
            if (!object) {
                return bad(fmt::format("'{}' is not an object ppr can count on (node, package, numa, l3cache, l2cache, "
                                       "l1cache, core, hwthread)",
                                       util::trim(words[2])));
            }
            m.ppr_count = static_cast<int>(*count);
            m.ppr_object = *object;
            qualifiers_at = 3;
        }
    } else if (words.size() == 1) {
        return bad(fmt::format("expected a policy ({})", kMapPolicies));
    }
    for (size_t i = qualifiers_at; i < words.size(); ++i) {
        if (util::trim(words[i]).empty()) continue;
        if (Status st = apply_map_qualifier(words[i], m, r); !st) return st;
    }
    if (m.pe_list_ordered && m.by != MapBy::pe_list) return bad("ORDERED applies only to pe-list=<cpus>");
    if (!m.file.empty() && m.by != MapBy::seq && m.by != MapBy::rankfile) {
        return bad("FILE= applies only to seq and rankfile");
    }
    if (m.by == MapBy::rankfile && m.file.empty()) return bad("rankfile needs its file: rankfile:FILE=<path>");
    mapping = std::move(m);
    reports = r;
    return {};
}

Status parse_rank_by(const std::string& text, MappingPolicy& mapping)
{
    std::vector<std::string> words = util::split(text, ':');
    auto by = words.empty() ? std::nullopt : match(lower(words[0]), kRankWords);
    if (!by) return bad(fmt::format("unknown ranking policy '{}' (valid: {})", words.empty() ? text : words[0], kRankPolicies));
    bool span = false;
    for (size_t i = 1; i < words.size(); ++i) {
        std::string q = lower(words[i]);
        if (q.empty()) continue;
        const bool object = *by != RankBy::slot && *by != RankBy::node && *by != RankBy::fill && *by != RankBy::span;
        if ((q == "span" || q == "fill") && !object) {
            return bad(fmt::format("qualifier '{}' applies only to ranking by an object (hwthread, core, l1cache, "
                                   "l2cache, l3cache, numa, package)",
                                   words[i]));
        }
        if (q == "span") {
            span = true;
        } else if (q == "fill") {
            span = false;
        } else {
            return bad(fmt::format("unknown qualifier '{}' (valid: SPAN, FILL)", words[i]));
        }
    }
    mapping.rank_by = *by;
    mapping.rank_span = span;
    return {};
}

Status parse_bind_to(const std::string& text, MappingPolicy& mapping, JobReports& reports)
{
    MappingPolicy m = mapping;
    JobReports r = reports;
    std::vector<std::string> words = util::split(text, ':');
    std::string head = words.empty() ? std::string() : lower(words[0]);
    if (!head.empty()) {
        auto level = match(head, kBindWords);
        if (!level) {
            if (head == "board") return bad(fmt::format("PRRTE's 'board' level is not offered by this DVM (valid: {})", kBindLevels));
            return bad(fmt::format("unknown level '{}' (valid: {})", util::trim(words[0]), kBindLevels));
        }
        m.bind_to = *level;
    }
    // Qualifiers after ':', several separated by ':' or ',' (PRRTE accepts both).
    for (size_t i = 1; i < words.size(); ++i) {
        for (const std::string& word : util::split(words[i], ',', true)) {
            auto q = match(lower(word), kBindQualifierWords);
            if (!q) return bad(fmt::format("unknown qualifier '{}' (valid: {})", util::trim(word), kBindQualifiers));
            switch (*q) {
            case BindQualifier::overload_allowed: m.bind_overload_allowed = true; break;
            case BindQualifier::no_overload: m.bind_overload_allowed = false; break;
            case BindQualifier::if_supported: m.bind_if_supported = true; break;
            case BindQualifier::report: r.bindings = true; break;
            }
        }
    }
    if (head.empty() && words.size() <= 1) return bad(fmt::format("expected a level ({})", kBindLevels));
    mapping = std::move(m);
    reports = r;
    return {};
}

Status check_combination(const MappingPolicy& m)
{
    if (m.pes_per_proc > 0) {
        if (m.by == MapBy::rankfile || m.by == MapBy::pe_list) {
            return bad(fmt::format("PE= cannot be combined with --map-by {}: it names each process's CPUs itself",
                                   to_string(m.by)));
        }
        const BindTo cpu = m.hwtcpus ? BindTo::hwthread : BindTo::core;
        if (m.bind_given() && m.bind_to != cpu) {
            return bad(fmt::format("PE={} binds each process to {} {}(s), which --bind-to {} contradicts; leave --bind-to "
                                   "out (or give --bind-to {})",
                                   m.pes_per_proc, m.pes_per_proc, m.hwtcpus ? "hwthread" : "core", to_string(m.bind_to),
                                   to_string(cpu)));
        }
    }
    if (m.span) {
        switch (m.by) {
        case MapBy::slot:
        case MapBy::node:
        case MapBy::seq:
        case MapBy::ppr:
        case MapBy::rankfile:
        case MapBy::pe_list:
            return bad(fmt::format("SPAN applies to mapping by an object (core, package, ...), not to {}", to_string(m.by)));
        default: break;
        }
    }
    if ((m.by == MapBy::rankfile || m.by == MapBy::pe_list) && m.rank_by != RankBy::unset) {
        return bad(fmt::format("--rank-by cannot be combined with --map-by {}: it sets each rank's place itself",
                               to_string(m.by)));
    }
    return {};
}

Status app_mapping(const MappingPolicy& job, const std::string& app_map_by, MappingPolicy& out)
{
    if (app_map_by.empty()) {
        out = job;
        return {};
    }
    // What stays the job's: ranking, binding, and the qualifiers that act on the job as a whole.
    MappingPolicy m;
    m.rank_by = job.rank_by;
    m.rank_span = job.rank_span;
    m.bind_to = job.bind_to;
    m.bind_overload_allowed = job.bind_overload_allowed;
    m.bind_if_supported = job.bind_if_supported;
    m.inherit = job.inherit;
    m.donotlaunch = job.donotlaunch;
    JobReports reports;
    if (Status st = parse_map_by(app_map_by, m, reports); !st) return st;
    // Words that would change the job rather than the app are refused, not half-applied.
    if (m.inherit != job.inherit || m.donotlaunch != job.donotlaunch || reports.map || reports.topology ||
        reports.allocation) {
        return bad("INHERIT, NOINHERIT, DONOTLAUNCH and the DISPLAY qualifiers apply to the whole job: give them in "
                   "the first app's --map-by");
    }
    if (Status st = check_combination(m); !st) return st;
    out = std::move(m);
    return {};
}

}  // namespace prte::runtime
