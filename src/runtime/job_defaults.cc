#include "runtime/job_defaults.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::runtime {

void apply_job_defaults(const JobDefaults& d, Job& job)
{
    if (job.timeout_seconds == 0) job.timeout_seconds = d.timeout_seconds;
    if (job.spawn_timeout_seconds == 0) job.spawn_timeout_seconds = d.spawn_timeout_seconds;
    job.timeout_report_state = job.timeout_report_state || d.timeout_report_state;
    job.timeout_stack_traces = job.timeout_stack_traces || d.timeout_stack_traces;
    job.recoverable = job.recoverable || d.recoverable;
    job.reports.map = job.reports.map || d.reports.map;
    job.reports.allocation = job.reports.allocation || d.reports.allocation;
    job.reports.bindings = job.reports.bindings || d.reports.bindings;
    if (d.reports.topology && !job.reports.topology) {
        job.reports.topology = true;
        job.reports.topology_hosts = d.reports.topology_hosts;
    }
    if (d.reports.cpus && !job.reports.cpus) {
        job.reports.cpus = true;
        job.reports.cpus_hosts = d.reports.cpus_hosts;
    }
    // A job that asked for restarts of its own (or to carry on, continuous) keeps its own.
    if (job.max_restarts == 0 && !job.continuous) {
        job.max_restarts = d.max_restarts;
        job.continuous = d.continuous;
    }
    if (d.env.empty()) return;
    for (AppContext& app : job.apps) app.env.insert(app.env.begin(), d.env.begin(), d.env.end());
}

namespace {

constexpr int64_t kMostRestarts = 100000;  // as prun's and the spawn directive's limit

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

Status seconds(const std::string& option, const std::string& text, int& out)
{
    std::optional<int64_t> value = util::parse_int(text);
    if (!value || *value < 0 || *value > INT32_MAX) {
        return {Errc::bad_param, fmt::format("{}{}: expected a number of seconds (0: none)", option, text)};
    }
    out = static_cast<int>(*value);
    return {};
}

// "name", "name=true|false|1|0|yes|no".
Status flag(const std::string& word, const std::string& value, bool& out)
{
    if (value.empty()) {
        out = true;
        return {};
    }
    std::optional<bool> v = util::parse_bool(value);
    if (!v) return {Errc::bad_param, fmt::format("--runtime-options {}: expected true or false", word)};
    out = *v;
    return {};
}

// autorestart / max-restarts / continuous together, as prun reads them (tools/prun/runtime_options.cc):
// restarts need a limit or continuous; autorestart=false turns them off; a limit alone restarts.
Status finish_restart_defaults(std::optional<bool> autorestart, std::optional<int> limit, JobDefaults& out)
{
    if (autorestart.has_value() && !*autorestart) {
        out.max_restarts = 0;
        out.continuous = false;
        return {};
    }
    if (autorestart.value_or(false) && !limit && !out.continuous) {
        return {Errc::bad_param, "--runtime-options autorestart: say how many times with max-restarts=N, or add "
                                 "continuous to restart without limit"};
    }
    if (limit) {
        out.max_restarts = *limit;
    } else if (out.continuous) {
        out.max_restarts = -1;  // continuous alone restarts without limit, as for a job's own
    }
    return {};
}

}  // namespace

Status parse_runtime_defaults(const std::string& list, JobDefaults& out)
{
    std::optional<bool> autorestart;
    std::optional<int> limit;
    for (const std::string& word : util::split(list, ',', true)) {
        size_t eq = word.find('=');
        std::string name = lower(word.substr(0, eq));
        std::string value = eq == std::string::npos ? std::string() : word.substr(eq + 1);
        Status st;
        if (name == "timeout") {
            st = seconds("--runtime-options timeout=", value, out.timeout_seconds);
        } else if (name == "spawn-timeout") {
            st = seconds("--runtime-options spawn-timeout=", value, out.spawn_timeout_seconds);
        } else if (name == "report-state-on-timeout") {
            st = flag(word, value, out.timeout_report_state);
        } else if (name == "get-stack-traces") {
            st = flag(word, value, out.timeout_stack_traces);
        } else if (name == "recoverable") {
            st = flag(word, value, out.recoverable);
        } else if (name == "autorestart") {
            bool on = false;
            st = flag(word, value, on);
            autorestart = on;
        } else if (name == "max-restarts") {
            std::optional<int64_t> n = util::parse_int(value);
            if (!n || *n < 0 || *n > kMostRestarts) {
                return {Errc::bad_param, fmt::format("--runtime-options {}: expected max-restarts=N, N from 0 to {}",
                                                     word, kMostRestarts)};
            }
            limit = static_cast<int>(*n);
        } else if (name == "continuous") {
            st = flag(word, value, out.continuous);
        } else {
            // PRRTE's other runtime options (error-nonzero-status, notifyerrors, stop-on-exec, ...)
            // are each job's own here.
            return {Errc::bad_param,
                    fmt::format("--runtime-options {}: not a DVM-wide default here (the DVM takes timeout, "
                                "spawn-timeout, report-state-on-timeout, get-stack-traces, recoverable, autorestart, "
                                "max-restarts, continuous); give it to each job: prun --runtime-options {}",
                                word, word)};
        }
        if (!st) return st;
    }
    return finish_restart_defaults(autorestart, limit, out);
}

Status parse_display_defaults(const std::string& list, JobDefaults& out)
{
    for (const std::string& item : util::split(list, ',', true)) {
        std::string word = lower(item.substr(0, item.find(':')));
        if (word == "map" || word == "map-devel") {
            out.reports.map = true;
        } else if (word == "allocation" || word == "alloc") {
            out.reports.allocation = true;
        } else if (word == "bind" || word == "bindings") {
            out.reports.bindings = true;
        } else if (word == "cpus" || word.rfind("cpus=", 0) == 0) {
            out.reports.cpus = true;
            size_t eq = item.find('=');
            if (eq != std::string::npos) {
                for (const std::string& host : util::split(item.substr(eq + 1), ';', true)) {
                    if (host != "*") out.reports.cpus_hosts.push_back(host);
                }
            }
        } else if (word.rfind("topo", 0) == 0) {
            out.reports.topology = true;
            size_t eq = item.find('=');
            if (eq != std::string::npos) {
                for (const std::string& host : util::split(item.substr(eq + 1), ';', true)) {
                    if (host != "*") out.reports.topology_hosts.push_back(host);
                }
            }
        } else {
            return {Errc::bad_param,
                    fmt::format("--display {}: unknown report '{}' (map, map-devel, allocation, bind, topo, cpus)", list, item)};
        }
    }
    return {};
}

Status add_exported_variable(const std::string& word, char** envp, JobDefaults& out)
{
    if (word.empty() || word[0] == '=') return {Errc::bad_param, fmt::format("-x '{}': expected NAME, NAME=value or PREFIX*", word)};
    if (word.find('=') != std::string::npos) {
        out.env.push_back(word);
        return {};
    }
    bool prefix = word.back() == '*';
    std::string name = prefix ? word.substr(0, word.size() - 1) : word;
    bool found = false;
    for (char** e = envp; e && *e; ++e) {
        std::string entry = *e;
        size_t eq = entry.find('=');
        if (eq == std::string::npos) continue;
        std::string n = entry.substr(0, eq);
        if (prefix ? n.rfind(name, 0) == 0 : n == name) {
            out.env.push_back(entry);
            found = true;
        }
    }
    if (!found && !prefix) return {Errc::bad_param, fmt::format("-x {}: not set in prte's environment", word)};
    return {};
}

}  // namespace prte::runtime
