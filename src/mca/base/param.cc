#include "mca/base/param.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "util/strings.h"

#ifndef PRTE_SYSCONFDIR_DEFAULT
#define PRTE_SYSCONFDIR_DEFAULT "/etc"
#endif

namespace prte::mca {

const char* to_string(ParamType type)
{
    switch (type) {
    case ParamType::integer: return "int";
    case ParamType::boolean: return "bool";
    case ParamType::string: return "string";
    case ParamType::enumeration: return "enum";
    }
    return "?";
}

const char* to_string(ParamSource source)
{
    switch (source) {
    case ParamSource::default_value: return "default";
    case ParamSource::system_file: return "system file";
    case ParamSource::user_file: return "user file";
    case ParamSource::environment: return "environment";
    case ParamSource::command_line: return "command line";
    case ParamSource::program: return "program";
    }
    return "?";
}

std::string ParamOrigin::describe() const
{
    if (where.empty()) return to_string(source);
    return fmt::format("{} {}", to_string(source), where);
}

std::string IntRange::describe() const
{
    constexpr int64_t lowest = std::numeric_limits<int64_t>::min();
    constexpr int64_t highest = std::numeric_limits<int64_t>::max();
    if (min != lowest && max != highest) return fmt::format("from {} to {}", min, max);
    if (min != lowest) return fmt::format("at least {}", min);
    if (max != highest) return fmt::format("at most {}", max);
    return {};
}

std::string ParamName::full() const
{
    std::string out = framework;
    for (const std::string* part : {&component, &name}) {
        if (part->empty()) continue;
        if (!out.empty()) out += '_';
        out += *part;
    }
    return out;
}

ParamRegistry& ParamRegistry::instance()
{
    static ParamRegistry registry;
    return registry;
}

Param& ParamRegistry::add(const ParamName& name, ParamType type, std::string default_text, std::string help)
{
    std::string full = name.full();
    auto it = params_.find(full);
    if (it != params_.end()) {
        // The same name and type again is a framework opened twice; another type is two pieces of
        // code that disagree on what the parameter is, and whichever reads it as the other type
        // would read nonsense.
        if (it->second->type_ != type) {
            errors_.push_back(fmt::format("parameter {} is registered twice with different types ({}, then {}): "
                                          "the second registration is refused",
                                          full, to_string(it->second->type_), to_string(type)));
        }
        return *it->second;
    }
    auto param = std::make_unique<Param>();
    param->name_ = name;
    param->full_name_ = full;
    param->type_ = type;
    param->help_ = std::move(help);
    param->default_text_ = std::move(default_text);
    Param& ref = *param;
    params_.emplace(full, std::move(param));
    return ref;
}

Param& ParamRegistry::register_int(const ParamName& name, int64_t default_value, std::string help, IntRange range)
{
    bool is_new = find(name.full()) == nullptr;
    Param& p = add(name, ParamType::integer, std::to_string(default_value), std::move(help));
    if (is_new) {
        p.range_ = range;
        resolve(p);
    }
    return p;
}

Param& ParamRegistry::register_bool(const ParamName& name, bool default_value, std::string help)
{
    bool is_new = find(name.full()) == nullptr;
    Param& p = add(name, ParamType::boolean, default_value ? "true" : "false", std::move(help));
    if (is_new) resolve(p);
    return p;
}

Param& ParamRegistry::register_string(const ParamName& name, std::string default_value, std::string help,
                                      ParamValidator validator)
{
    bool is_new = find(name.full()) == nullptr;
    Param& p = add(name, ParamType::string, std::move(default_value), std::move(help));
    if (is_new) {
        p.validator_ = std::move(validator);
        resolve(p);
    }
    return p;
}

Param& ParamRegistry::register_enum(const ParamName& name, std::string default_value,
                                    std::vector<std::string> allowed, std::string help)
{
    bool is_new = find(name.full()) == nullptr;
    Param& p = add(name, ParamType::enumeration, std::move(default_value), std::move(help));
    if (is_new) {
        p.allowed_ = std::move(allowed);
        resolve(p);
    }
    return p;
}

std::optional<std::string> ParamRegistry::check_value(Param& param, const std::string& text,
                                                      int64_t* int_out) const
{
    switch (param.type_) {
    case ParamType::integer: {
        auto v = util::parse_int(text);
        if (!v) {
            if (!param.range_.bounded()) return std::string("expected an integer");
            return fmt::format("expected an integer {}", param.range_.describe());
        }
        if (!param.range_.contains(*v)) return fmt::format("expected an integer {}", param.range_.describe());
        *int_out = *v;
        break;
    }
    case ParamType::boolean: {
        auto v = util::parse_bool(text);
        if (!v) return std::string("expected a boolean (true/false, 1/0, yes/no)");
        *int_out = *v ? 1 : 0;
        break;
    }
    case ParamType::enumeration: {
        bool found = false;
        for (const auto& allowed : param.allowed_) found = found || allowed == text;
        if (!found) return fmt::format("expected one of: {}", util::join(param.allowed_, ", "));
        break;
    }
    case ParamType::string:
        break;
    }
    if (param.validator_) return param.validator_(text);
    return std::nullopt;
}

// Picks the highest-precedence raw setting; a value that does not check out is reported and the
// next source down is tried, so one bad setting never leaves a parameter without a value.
void ParamRegistry::resolve(Param& param)
{
    std::vector<const RawSetting*> candidates;
    auto it = raw_.find(param.full_name_);
    if (it != raw_.end()) {
        for (const auto& setting : it->second) candidates.push_back(&setting);
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const RawSetting* a, const RawSetting* b) {
        return a->origin.source > b->origin.source;
    });
    for (const RawSetting* setting : candidates) {
        int64_t int_value = 0;
        std::string value(util::trim(setting->value));
        if (auto problem = check_value(param, value, &int_value)) {
            errors_.push_back(fmt::format("bad value '{}' for parameter {} (from {}): {}", value,
                                          param.full_name_, setting->origin.describe(), *problem));
            continue;
        }
        param.value_text_ = param.type_ == ParamType::boolean ? (int_value ? "true" : "false") : value;
        param.int_value_ = int_value;
        param.origin_ = setting->origin;
        return;
    }
    int64_t int_value = 0;
    if (auto problem = check_value(param, param.default_text_, &int_value)) {
        errors_.push_back(fmt::format("default value '{}' of parameter {} is invalid: {}", param.default_text_,
                                      param.full_name_, *problem));
    }
    param.value_text_ = param.default_text_;
    param.int_value_ = int_value;
    param.origin_ = ParamOrigin{};
}

void ParamRegistry::set(const std::string& full_name, const std::string& value, ParamOrigin origin)
{
    auto& settings = raw_[full_name];
    // One setting per source: a later one from the same source replaces the earlier.
    std::erase_if(settings, [&](const RawSetting& s) { return s.origin.source == origin.source; });
    settings.push_back({value, std::move(origin)});
    if (Param* p = find(full_name)) resolve(*p);
}

Status ParamRegistry::load_file(const std::string& path, ParamSource source)
{
    std::ifstream in(path);
    if (!in) return {};  // an absent param file is normal
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::string_view text = util::trim(line);
        if (text.empty() || text.front() == '#') continue;
        size_t eq = text.find('=');
        std::string_view name = eq == std::string_view::npos ? text : util::trim(text.substr(0, eq));
        bool name_ok = !name.empty();
        for (char c : name) name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        if (eq == std::string_view::npos || !name_ok) {
            return {Errc::bad_file, fmt::format("{}:{}: expected 'name = value', found '{}'", path, lineno, text)};
        }
        std::string_view value = util::trim(text.substr(eq + 1));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
            value = value.substr(1, value.size() - 2);
        }
        set(std::string(name), std::string(value), {source, fmt::format("{}:{}", path, lineno)});
    }
    return {};
}

void ParamRegistry::load_environment(char** envp)
{
    static constexpr std::string_view prefix = "PRTE_MCA_";
    for (char** e = envp; e && *e; ++e) {
        std::string_view entry(*e);
        if (!util::starts_with(entry, prefix)) continue;
        size_t eq = entry.find('=');
        if (eq == std::string_view::npos || eq == prefix.size()) continue;
        std::string name(entry.substr(prefix.size(), eq - prefix.size()));
        set(name, std::string(entry.substr(eq + 1)), {ParamSource::environment, "PRTE_MCA_" + name});
    }
}

std::string ParamRegistry::system_param_file()
{
    const char* dir = std::getenv("PRTE_SYSCONFDIR");
    return fmt::format("{}/prte-mca-params.conf", dir && *dir ? dir : PRTE_SYSCONFDIR_DEFAULT);
}

std::string ParamRegistry::user_param_file()
{
    const char* home = std::getenv("HOME");
    if (!home || !*home) return {};
    return fmt::format("{}/.prte/mca-params.conf", home);
}

Status ParamRegistry::load_standard_sources(char** envp)
{
    if (Status st = load_file(system_param_file(), ParamSource::system_file); !st) return st;
    if (std::string user = user_param_file(); !user.empty()) {
        if (Status st = load_file(user, ParamSource::user_file); !st) return st;
    }
    load_environment(envp);
    return {};
}

Param* ParamRegistry::find(const std::string& full_name)
{
    auto it = params_.find(full_name);
    return it == params_.end() ? nullptr : it->second.get();
}

const Param* ParamRegistry::find(const std::string& full_name) const
{
    auto it = params_.find(full_name);
    return it == params_.end() ? nullptr : it->second.get();
}

std::vector<const Param*> ParamRegistry::all() const
{
    std::vector<const Param*> out;
    for (const auto& [name, param] : params_) out.push_back(param.get());
    return out;
}

std::vector<std::pair<std::string, ParamOrigin>> ParamRegistry::unmatched_settings() const
{
    std::vector<std::pair<std::string, ParamOrigin>> out;
    for (const auto& [name, settings] : raw_) {
        if (params_.count(name) || settings.empty()) continue;
        out.emplace_back(name, settings.back().origin);
    }
    return out;
}

std::vector<std::string> ParamRegistry::unmatched_warnings() const
{
    std::vector<std::string> out;
    for (const auto& [name, origin] : unmatched_settings()) {
        out.push_back(fmt::format("unknown parameter '{}' (from {}) is ignored; 'prte_info --param all all' lists "
                                  "every parameter",
                                  name, origin.describe()));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> ParamRegistry::explicit_settings() const
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, settings] : raw_) {
        const RawSetting* best = nullptr;
        for (const auto& s : settings) {
            if (!best || s.origin.source > best->origin.source) best = &s;
        }
        if (best) out.emplace_back(name, best->value);
    }
    return out;
}

}  // namespace prte::mca
