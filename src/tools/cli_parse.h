// What every program's main does with its command line after building its CLI11 app: parse it,
// print the help when asked, turn a parse error into the program's one-line usage error. Header
// only: CLI11 is a header library, and this file is not part of the installed authoring surface.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace prte::tools {

// Parses `args` (argv without the program name). Returns the exit status when the program is done
// already (0 after --help, usage_error's status after a bad option), nothing when it should go on.
inline std::optional<int> parse_command_line(CLI::App& app, std::vector<std::string> args,
                                             const std::function<int(const std::string&)>& usage_error)
{
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    return std::nullopt;
}

}  // namespace prte::tools
