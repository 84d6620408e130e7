#include "tools/prun/exit_status.h"

#include <vector>

#include "tools/prun/tool_connection.h"
#include "util/strings.h"

namespace prte::prun {

namespace {

int clamp_exit(int64_t code) { return code > 0 && code <= 255 ? static_cast<int>(code) : (code > 255 ? 255 : 1); }

}  // namespace

bool is_launch_failure(pmix_status_t status)
{
    switch (status) {
    case PMIX_ERR_JOB_APP_NOT_EXECUTABLE:
    case PMIX_ERR_JOB_NO_EXE_SPECIFIED:
    case PMIX_ERR_JOB_FAILED_TO_MAP:
    case PMIX_ERR_JOB_FAILED_TO_LAUNCH:
    case PMIX_ERR_JOB_EXE_NOT_FOUND:
    case PMIX_ERR_JOB_WDIR_NOT_FOUND:
    case PMIX_ERR_JOB_INSUFFICIENT_RESOURCES:
    case PMIX_ERR_JOB_ALLOC_FAILED:
    case PMIX_ERR_NOT_FOUND:
    case PMIX_ERR_OUT_OF_RESOURCE:
        return true;
    default:
        return false;
    }
}

std::string launch_failure_reason(pmix_status_t status)
{
    switch (status) {
    case PMIX_ERR_JOB_EXE_NOT_FOUND:
    case PMIX_ERR_NOT_FOUND: return "no such program";
    case PMIX_ERR_JOB_APP_NOT_EXECUTABLE: return "not an executable program";
    case PMIX_ERR_JOB_NO_EXE_SPECIFIED: return "no program given";
    case PMIX_ERR_JOB_WDIR_NOT_FOUND: return "the working directory does not exist";
    case PMIX_ERR_JOB_INSUFFICIENT_RESOURCES:
    case PMIX_ERR_OUT_OF_RESOURCE:
        return "not enough slots in the DVM (use fewer processes, or --map-by :OVERSUBSCRIBE)";
    case PMIX_ERR_JOB_FAILED_TO_MAP: return "the processes could not be mapped onto the DVM's nodes";
    default: return tools::status_text(status);
    }
}

int launch_failure_exit(pmix_status_t status)
{
    if (status == PMIX_ERR_JOB_EXE_NOT_FOUND || status == PMIX_ERR_NOT_FOUND) return 127;
    if (status == PMIX_ERR_JOB_APP_NOT_EXECUTABLE) return 126;
    return 1;
}

int exit_status_of(const JobEnd& end)
{
    if (end.exit_code && *end.exit_code != 0) return clamp_exit(*end.exit_code);
    if (end.status == PMIX_SUCCESS) return 0;
    if (end.status > 0) return clamp_exit(end.status);  // a DVM may report the exit code as the status
    if (is_launch_failure(end.status)) return launch_failure_exit(end.status);
    return 1;
}

std::string one_line(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::string out;
    for (char c : text) {
        if (c == '\n') {
            out += "; ";
        } else {
            out += c;
        }
    }
    return out;
}

std::string commands_of(const Request& request)
{
    std::vector<std::string> names;
    for (const AppContext& app : request.apps) names.push_back(app.command);
    return util::join(names, ", ");
}

}  // namespace prte::prun
