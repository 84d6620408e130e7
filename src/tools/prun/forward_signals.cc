#include "tools/prun/forward_signals.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::prun {

namespace {

std::string upper(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
    return s;
}

// Why a signal cannot be forwarded, or nullptr if it can.
const char* kept_by_prun(int signal)
{
    switch (signal) {
    case SIGINT:
    case SIGTERM:
    case SIGHUP: return "it ends the job (the processes get SIGTERM, then SIGKILL)";
    case SIGKILL:
    case SIGSTOP: return "prun cannot catch it";
    case SIGPIPE: return "prun uses it to see that its output's reader went away";
    case SIGQUIT: return "it ends prun, as in PRRTE";
    case SIGSEGV:
    case SIGBUS:
    case SIGFPE:
    case SIGILL: return "it reports a fault in prun itself";
    default: return nullptr;
    }
}

// The number of `word` ("USR1", "SIGUSR1", "10"), or 0.
int signal_number(const std::string& word)
{
    if (!word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::isdigit(c); })) {
        auto n = util::parse_int(word);
        return n && *n > 0 && *n < NSIG ? static_cast<int>(*n) : 0;
    }
    std::string name = upper(word);
    if (name.rfind("SIG", 0) == 0) name = name.substr(3);
    if (name.empty()) return 0;
    for (int s = 1; s < NSIG; ++s) {
        const char* abbrev = sigabbrev_np(s);  // glibc's "USR1" for SIGUSR1; null past the named ones
        if (abbrev && name == abbrev) return s;
    }
    return 0;
}

}  // namespace

std::vector<int> default_forwarded_signals() { return {SIGTSTP, SIGUSR1, SIGUSR2, SIGABRT, SIGALRM, SIGCONT}; }

std::string signal_name(int signal)
{
    const char* abbrev = sigabbrev_np(signal);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

Status parse_forward_signals(const std::string& list, std::vector<int>& out)
{
    out.clear();
    std::string text(util::trim(list));
    if (upper(text) == "NONE") return {};
    for (const std::string& item : util::split(text, ',')) {
        std::string word(util::trim(item));
        if (word.empty()) return {Errc::bad_param, fmt::format("--forward-signals '{}': an empty entry", list)};
        if (upper(word) == "NONE") {
            return {Errc::bad_param, fmt::format("--forward-signals {}: 'none' cannot be combined with signals", list)};
        }
        int signal = signal_number(word);
        if (signal == 0) {
            return {Errc::bad_param, fmt::format("--forward-signals {}: unknown signal '{}' (give names such as USR1 or "
                                                 "SIGUSR1, numbers, or none)",
                                                 list, word)};
        }
        if (const char* why = kept_by_prun(signal)) {
            return {Errc::bad_param,
                    fmt::format("--forward-signals {}: {} cannot be forwarded: {}", list, signal_name(signal), why)};
        }
        if (std::find(out.begin(), out.end(), signal) == out.end()) out.push_back(signal);
    }
    return {};
}

}  // namespace prte::prun
