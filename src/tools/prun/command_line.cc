#include "tools/prun/command_line.h"

#include "tools/prun/preload.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prte_config.h"
#include "tools/prun/spawn_request.h"
#include "util/output.h"

namespace prte::prun {

namespace {

int usage_error(const std::string& message)
{
    output::error("{} (run 'prun --help' for usage)", message);
    return 2;
}

}  // namespace

std::optional<int> read_command_line(int argc, char** argv, Request& request)
{
    if (Status st = parse(std::vector<std::string>(argv + 1, argv + argc), request); !st) {
        return usage_error(st.message());
    }
    if (request.help) {
        std::string page = usage();
        if (!request.help_topic.empty()) {
            if (Status st = option_help("prun", request.help_topic, page); !st) return usage_error(st.message());
        }
        std::fputs(page.c_str(), stdout);
        return 0;
    }
    if (request.version) {
        std::printf("prun %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (Status st = apply_mpiexec_timeout(std::getenv("MPIEXEC_TIMEOUT"), request); !st) {
        return usage_error(st.message());
    }
    if (!request.quiet) {
        for (const std::string& note : request.notes) std::fprintf(stderr, "prun: note: %s\n", note.c_str());
    }
    make_hostfiles_absolute(request, current_directory());
    if (Status st = read_preloads(request); !st) {
        output::error("{}", st.message());
        return 1;
    }
    return std::nullopt;
}

Status report_pid(const std::string& where)
{
    if (where.empty()) return {};
    std::string pid = std::to_string(getpid());
    if (where == "-" || where == "+") {
        std::fprintf(where == "-" ? stdout : stderr, "%s\n", pid.c_str());
        std::fflush(where == "-" ? stdout : stderr);
        return {};
    }
    std::ofstream file(where, std::ios::trunc);
    file << pid << "\n";
    file.close();
    if (!file) return {Errc::bad_param, fmt::format("--report-pid {}: cannot write the file", where)};
    return {};
}

}  // namespace prte::prun
