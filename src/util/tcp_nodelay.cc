#include "util/tcp_nodelay.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace prte::util {

int set_tcp_nodelay_on_all_sockets()
{
    int count = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        char* rest = nullptr;
        long fd = std::strtol(name.c_str(), &rest, 10);
        if (!rest || *rest != '\0' || fd < 0) continue;
        // Only sockets, told by their /proc link ("socket:[inode]") without touching the fd: PMIx's
        // threads run beside us and close descriptors of their own (its listener's wake-up pipe),
        // and an fstat on one being closed is a race (ThreadSanitizer reports it).
        std::error_code link_ec;
        const std::string target = std::filesystem::read_symlink(it->path(), link_ec).string();
        if (link_ec || !target.starts_with("socket:")) continue;
        int domain = 0, type = 0;
        socklen_t len = sizeof(domain);
        if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0) continue;
        len = sizeof(type);
        if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) != 0) continue;
        if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM) continue;
        if (set_tcp_nodelay(static_cast<int>(fd))) ++count;
    }
    return count;
}

bool set_tcp_nodelay(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0;
}

}  // namespace prte::util
