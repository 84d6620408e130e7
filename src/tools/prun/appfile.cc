#include "tools/prun/appfile.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace prte::prun {
namespace {

// Blank-separated words; quotes group and are removed. False for an unclosed quote.
bool split_words(const std::string& line, std::vector<std::string>& words)
{
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char c : line) {
        if (quote) {
            if (c == quote) {
                quote = 0;
            } else {
                word += c;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(word);
    return quote == 0;
}

}  // namespace

Status read_appfile(const std::string& path, std::vector<std::vector<std::string>>& contexts)
{
    std::ifstream in(path);
    if (!in) return {Errc::bad_param, fmt::format("--app {}: cannot read it: {}", path, std::strerror(errno))};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        std::vector<std::string> words;
        if (!split_words(line, words)) return {Errc::bad_param, fmt::format("--app {}, line {}: a quote is not closed", path, number)};
        for (const std::string& w : words) {
            if (w == ":") return {Errc::bad_param, fmt::format("--app {}, line {}: one app context a line, without ':'", path, number)};
        }
        contexts.push_back(std::move(words));
    }
    if (contexts.empty()) return {Errc::bad_param, fmt::format("--app {}: no app context in it (one a line)", path)};
    return {};
}

}  // namespace prte::prun
