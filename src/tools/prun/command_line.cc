#include "tools/prun/command_line.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    if (request.version) {
        std::printf("prun %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (Status st = apply_mpiexec_timeout(std::getenv("MPIEXEC_TIMEOUT"), request); !st) {
        return usage_error(st.message());
    }
    for (const std::string& note : request.notes) std::fprintf(stderr, "prun: note: %s\n", note.c_str());
    make_hostfiles_absolute(request, current_directory());
    return std::nullopt;
}

}  // namespace prte::prun
