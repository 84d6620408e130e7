#include "tools/prun/environment_options.h"

#include <algorithm>

#include <fmt/format.h>

extern char** environ;

namespace prte::prun {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// A variable of prun's own process that says who prun is to PMIx, Open MPI or prte: never
// forwarded wholesale (--fwd-environment), as a process of the job would take it for its own.
bool describes_this_process(const std::string& name)
{
    for (const char* own : {"PMIX_", "PRTE_", "OMPI_"}) {
        if (!starts_with(name, own)) continue;
        return !starts_with(name, std::string(own) + "MCA_");
    }
    return false;
}

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// NAME[c]: the variable and its one-character separator.
Status read_name_and_separator(const std::string& option, const std::string& word, EnvOption& out)
{
    size_t open = word.find('[');
    if (open == std::string::npos || open == 0 || word.size() != open + 3 || word[open + 2] != ']') {
        return {Errc::bad_param,
                fmt::format("{} {}: expected NAME[c] and a value, c the separator (e.g. {} PATH[:] /opt/bin)", option,
                            word, option)};
    }
    out.name = word.substr(0, open);
    out.separator = word[open + 1];
    return {};
}

}  // namespace

Status read_env_option(const std::string& option, const std::vector<std::string>& words, EnvOption& out)
{
    out = {};
    const std::string word = words.empty() ? std::string() : words[0];
    if (option == "-x") {
        out.kind = EnvOption::export_var;
        out.name = word;
        std::string name = name_of(word);
        if (name.empty() || name == "*") return {Errc::bad_param, fmt::format("-x '{}': expected NAME, NAME=value or PREFIX*", word)};
        return {};
    }
    if (option == "--set-env") {
        size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0) {
            return {Errc::bad_param, fmt::format("--set-env '{}': expected NAME=value", word)};
        }
        out.kind = EnvOption::set;
        out.name = word.substr(0, eq);
        out.value = word.substr(eq + 1);
        return {};
    }
    if (option == "--unset-env") {
        if (word.empty() || word == "*" || word.find('=') != std::string::npos) {
            return {Errc::bad_param, fmt::format("--unset-env '{}': expected NAME or PREFIX*", word)};
        }
        out.kind = EnvOption::unset;
        out.name = word;
        return {};
    }
    if (option == "--prepend-env" || option == "--append-env") {
        out.kind = option == "--prepend-env" ? EnvOption::prepend : EnvOption::append;
        if (words.size() != 2) return {Errc::bad_param, fmt::format("{} {}: expected NAME[c] and a value", option, word)};
        if (Status st = read_name_and_separator(option, word, out); !st) return st;
        out.value = words[1];
        return {};
    }
    if (option == "--fwd-environment") {
        out.kind = EnvOption::forward_all;
        return {};
    }
    return {Errc::bad_param, fmt::format("{}: not an environment option", option)};
}

Status resolve_environment(const std::vector<EnvOption>& options, const std::vector<std::string>& environment,
                           std::vector<EnvSetting>& out, std::vector<std::string>& notes)
{
    auto set_from_here = [&out](const std::string& entry) {
        size_t eq = entry.find('=');
        out.push_back({EnvSetting::set, entry.substr(0, eq), entry.substr(eq + 1), ':'});
    };
    for (const EnvOption& o : options) {
        switch (o.kind) {
        case EnvOption::export_var: {
            if (o.name.find('=') != std::string::npos) {
                set_from_here(o.name);
            } else if (o.name.back() == '*') {
                std::string prefix = o.name.substr(0, o.name.size() - 1);
                size_t before = out.size();
                for (const std::string& entry : environment) {
                    if (starts_with(name_of(entry), prefix)) set_from_here(entry);
                }
                if (out.size() == before) notes.push_back(fmt::format("-x {}: no variable of this environment starts with '{}'", o.name, prefix));
            } else {
                auto it = std::find_if(environment.begin(), environment.end(),
                                       [&o](const std::string& entry) { return name_of(entry) == o.name; });
                if (it == environment.end()) {
                    return {Errc::bad_param,
                            fmt::format("-x {}: {} is not set in this environment (use -x {}=<value>)", o.name, o.name, o.name)};
                }
                set_from_here(*it);
            }
            break;
        }
        case EnvOption::set: out.push_back({EnvSetting::set, o.name, o.value, ':'}); break;
        case EnvOption::unset: out.push_back({EnvSetting::unset, o.name, {}, ':'}); break;
        case EnvOption::prepend: out.push_back({EnvSetting::prepend, o.name, o.value, o.separator}); break;
        case EnvOption::append: out.push_back({EnvSetting::append, o.name, o.value, o.separator}); break;
        case EnvOption::forward_all:
            for (const std::string& entry : environment) {
                std::string name = name_of(entry);
                // PWD is the working directory's, which --wdir decides.
                if (entry.find('=') != std::string::npos && name != "PWD" && !describes_this_process(name)) set_from_here(entry);
            }
            break;
        }
    }
    return {};
}

std::vector<std::string> current_environment()
{
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
    return out;
}

}  // namespace prte::prun
