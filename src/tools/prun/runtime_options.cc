#include "tools/prun/runtime_options.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::prun {
namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// PRRTE's words, in the order of its documentation (cli-runtime-options.rst).
// The most restarts per process (the DVM's limit too, pmix/spawn_translate.cc).
constexpr int64_t kMostRestarts = 100000;

const std::vector<std::string>& known_words()
{
    static const std::vector<std::string> words = {
        "error-nonzero-status", "donotlaunch",      "donotspawn",   "show-progress",
        "notifyerrors",         "recoverable",      "autorestart",  "continuous",
        "max-restarts",         "exec-agent",       "default-exec-agent", "output-proctable",
        "stop-on-exec",         "stop-in-init",     "stop-in-app",  "timeout",
        "spawn-timeout",        "report-state-on-timeout", "get-stack-traces",
        "report-child-jobs-separately", "aggregate-help-messages", "fwd-environment"};
    return words;
}

// The word `given` abbreviates: itself, or the one known word it begins.
Status full_word(const std::string& given, std::string& out)
{
    std::vector<std::string> matches;
    for (const std::string& w : known_words()) {
        if (w == given) {
            out = w;
            return {};
        }
        if (w.rfind(given, 0) == 0) matches.push_back(w);
    }
    if (matches.size() == 1) {
        out = matches[0];
        return {};
    }
    if (matches.empty()) {
        return {Errc::bad_param, fmt::format("--runtime-options: unknown option '{}' (known: {})", given, runtime_option_words())};
    }
    return {Errc::bad_param, fmt::format("--runtime-options: '{}' could be any of {}", given, util::join(matches, ", "))};
}

// A truth value as PRRTE reads it: absent is true; anything not true or false is refused.
Status truth(const std::string& word, const std::string& value, bool has_value, bool& out)
{
    if (!has_value) {
        out = true;
        return {};
    }
    std::string v = lower(value);
    if (v == "enable") v = "true";
    if (v == "disable") v = "false";
    std::optional<bool> b = util::parse_bool(v);
    if (!b) {
        if (auto n = util::parse_int(v)) b = *n != 0;
    }
    if (!b) return {Errc::bad_param, fmt::format("--runtime-options {}={}: expected true or false", word, value)};
    out = *b;
    return {};
}

Status seconds(const std::string& word, const std::string& value, int& out)
{
    // PRRTE's [[[dd:]hh:]mm:]ss, or plain seconds.
    int64_t total = 0;
    std::vector<std::string> parts = util::split(value, ':');
    static const int64_t unit[] = {1, 60, 3600, 86400};
    if (parts.empty() || parts.size() > 4) return {Errc::bad_param, fmt::format("--runtime-options {}={}: expected seconds or [[dd:]hh:]mm:ss", word, value)};
    for (size_t i = 0; i < parts.size(); ++i) {
        auto n = util::parse_int(parts[parts.size() - 1 - i]);
        if (!n || *n < 0) return {Errc::bad_param, fmt::format("--runtime-options {}={}: expected seconds or [[dd:]hh:]mm:ss", word, value)};
        total += *n * unit[i];
    }
    if (total <= 0 || total > 100000000) return {Errc::bad_param, fmt::format("--runtime-options {}={}: expected a positive time", word, value)};
    out = static_cast<int>(total);
    return {};
}

void note(Request& r, std::string text)
{
    if (std::find(r.notes.begin(), r.notes.end(), text) == r.notes.end()) r.notes.push_back(std::move(text));
}

Status apply_one(const std::string& word, const std::string& value, bool has_value, Request& r, std::string& map_by)
{
    bool on = true;
    auto flag = [&]() { return truth(word, value, has_value, on); };
    if (word == "error-nonzero-status") {
        if (Status st = flag(); !st) return st;
        r.error_nonzero_status = on;
    } else if (word == "recoverable") {
        if (Status st = flag(); !st) return st;
        r.recoverable = on;
    } else if (word == "notifyerrors") {
        if (Status st = flag(); !st) return st;
        // The DVM always tells a job's other processes of a failure (PMIx event); with notifyerrors
        // false it still does.
        if (!on) note(r, "--runtime-options notifyerrors=false: the job's processes are told of a failure all the same");
    } else if (word == "donotlaunch") {
        if (Status st = flag(); !st) return st;
        if (on) map_by += ":DONOTLAUNCH";
    } else if (word == "timeout") {
        if (!has_value) return {Errc::bad_param, "--runtime-options timeout: expected timeout=<seconds>"};
        return seconds(word, value, r.timeout);
    } else if (word == "spawn-timeout") {
        if (!has_value) return {Errc::bad_param, "--runtime-options spawn-timeout: expected spawn-timeout=<seconds>"};
        return seconds(word, value, r.spawn_timeout);
    } else if (word == "report-state-on-timeout") {
        return truth(word, value, has_value, r.report_state_on_timeout);
    } else if (word == "get-stack-traces") {
        return truth(word, value, has_value, r.stack_traces_on_timeout);
    } else if (word == "fwd-environment") {
        if (Status st = flag(); !st) return st;
        r.forward_environment = on;
    } else if (word == "report-child-jobs-separately") {
        if (Status st = flag(); !st) return st;
        r.report_children_separately = on;
    } else if (word == "show-progress" || word == "aggregate-help-messages" || word == "default-exec-agent") {
        if (word != "default-exec-agent") {
            if (Status st = flag(); !st) return st;
        }
        note(r, fmt::format("--runtime-options {}: accepted, changes nothing here ({})", word,
                            word == "show-progress"               ? "the DVM is already running"
                            : word == "aggregate-help-messages"   ? "each message is printed as it comes"
                                                                  : "processes are always started directly"));
    } else if (word == "autorestart") {
        if (Status st = flag(); !st) return st;
        r.autorestart = on;
    } else if (word == "continuous") {
        if (Status st = flag(); !st) return st;
        r.continuous = on;
    } else if (word == "max-restarts") {
        auto n = has_value ? util::parse_int(value) : std::nullopt;
        if (!n || *n < 0 || *n > kMostRestarts) {
            return {Errc::bad_param, fmt::format("--runtime-options max-restarts{}{}: expected max-restarts=N, a number "
                                                 "from 0 to {}", has_value ? "=" : "", value, kMostRestarts)};
        }
        r.max_restarts = static_cast<int>(*n);
    } else if (word == "stop-on-exec" || word == "stop-in-init" || word == "stop-in-app" || word == "output-proctable") {
        return {Errc::bad_param, fmt::format("--runtime-options {}: not supported yet: debugger support (issue 42) is not "
                                             "done; start the program under a debugger yourself", word)};
    } else if (word == "donotspawn" || word == "exec-agent") {
        return {Errc::bad_param, fmt::format("--runtime-options {}: not supported: the daemons always start the "
                                             "processes themselves; put a wrapper before the program instead", word)};
    }
    return {};
}

}  // namespace

const char* runtime_option_words()
{
    return "error-nonzero-status[=bool], recoverable[=bool], notifyerrors[=bool], donotlaunch, timeout=T, "
           "spawn-timeout=T, report-state-on-timeout, get-stack-traces, fwd-environment, autorestart[=bool] (with "
           "max-restarts=N), max-restarts=N, continuous[=bool], show-progress, aggregate-help-messages, "
           "report-child-jobs-separately; refused with a reason: stop-on-exec, stop-in-init, stop-in-app, "
           "output-proctable, donotspawn, exec-agent";
}

Status finish_restarts(Request& r)
{
    if (r.autorestart.has_value() && !*r.autorestart) {
        r.max_restarts = -1;
        return {};
    }
    if (r.autorestart.value_or(false) && r.max_restarts < 0 && !r.continuous) {
        return {Errc::bad_param, "--runtime-options autorestart: say how many times with max-restarts=N (or "
                                 "--max-restarts N); --continuous restarts without limit"};
    }
    return {};
}

Status apply_runtime_options(const std::string& value, Request& request, std::string& map_by)
{
    for (const std::string& item : util::split(value, ',', true)) {
        std::string text(util::trim(item));
        size_t eq = text.find('=');
        std::string given = lower(text.substr(0, eq)), word;
        if (Status st = full_word(given, word); !st) return st;
        bool has_value = eq != std::string::npos;
        if (Status st = apply_one(word, has_value ? text.substr(eq + 1) : std::string(), has_value, request, map_by); !st) {
            return st;
        }
    }
    return {};
}

}  // namespace prte::prun
