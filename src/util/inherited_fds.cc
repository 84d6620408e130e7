#include "util/inherited_fds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)  // <linux/close_range.h>, Linux 5.11
#endif

namespace prte::util {

void mark_inherited_fds_cloexec() noexcept
{
    if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
    rlimit limit{};
    rlim_t max = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
    if (max == RLIM_INFINITY || max > 65536) max = 65536;
    for (int fd = 3; fd < static_cast<int>(max); ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace prte::util
