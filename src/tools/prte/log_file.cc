#include "tools/prte/log_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace prte::tools {

Status DvmLog::redirect_to(const std::string& path)
{
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return {Errc::bad_file, fmt::format("cannot open the log file {}: {}", path, std::strerror(errno))};
    std::fflush(stdout);
    std::fflush(stderr);
    // stdout and stderr: whatever writes to them (fmt, the daemons' relayed lines) lands here.
    if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
        int err = errno;
        ::close(fd);
        return {Errc::bad_file, fmt::format("cannot write to the log file {}: {}", path, std::strerror(err))};
    }
    ::close(fd);
    return {};
}

Status DvmLog::start(const std::string& path)
{
    if (Status st = redirect_to(path); !st) return st;
    path_ = path;
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        if (null_fd > STDERR_FILENO) ::close(null_fd);
    }
    return {};
}

Status DvmLog::reopen()
{
    if (!active()) return {};
    return redirect_to(path_);
}

}  // namespace prte::tools
