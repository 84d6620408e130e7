#include "tools/prun/preload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::prun {
namespace {

std::string base_name(const std::string& path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The program as the shell would find it here: a name with a '/' as given, else the first
// executable of that name in PATH.
std::string find_program(const std::string& command)
{
    if (command.find('/') != std::string::npos) return command;
    const char* path = std::getenv("PATH");
    for (const std::string& dir : util::split(path ? path : "", ':', true)) {
        std::string candidate = dir + "/" + command;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
}

// Where the file lands, relative to the working directory: as given less a leading "./", or the
// base name of an absolute path.
std::string destination_of(const std::string& given)
{
    if (!given.empty() && given.front() == '/') return base_name(given);
    std::string name = given;
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    return name;
}

// Reads `path` whole; `option` and `given` name it in the error.
Status read_file(const std::string& option, const std::string& given, const std::string& path, uint64_t& total,
                 runtime::PreloadFile& out)
{
    auto refuse = [&](const std::string& why) {
        return Status(Errc::bad_param, fmt::format("{} {}: cannot read '{}': {}", option, given, path, why));
    };
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return refuse(std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return refuse("not a regular file");
    }
    total += static_cast<uint64_t>(st.st_size);
    if (total > runtime::kMaxPreloadBytes) {
        ::close(fd);
        return {Errc::bad_param,
                fmt::format("{} {}: '{}' brings the job's preloaded files to {} bytes, over the {} MiB a job may carry "
                            "(PMIx's message limit); put larger files on a shared file system",
                            option, given, path, total, runtime::kMaxPreloadBytes >> 20)};
    }
    out.content.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.content.size()) {
        ssize_t n = ::read(fd, out.content.data() + done, out.content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int error = n < 0 ? errno : EIO;
            ::close(fd);
            return refuse(n < 0 ? std::strerror(error) : "it shrank while being read");
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    out.mode = st.st_mode & 07777;
    out.device = st.st_dev;
    out.inode = st.st_ino;
    out.machine = runtime::local_machine();
    return {};
}

Status read_app(AppContext& app, uint64_t& total)
{
    app.preloads.clear();
    if (app.preload_binary) {
        std::string path = find_program(app.command);
        if (path.empty()) {
            return {Errc::bad_param, fmt::format("--preload-binary: cannot find the program '{}' here (not in PATH)", app.command)};
        }
        runtime::PreloadFile file;
        file.binary = true;
        file.name = base_name(path);
        if (Status st = read_file("--preload-binary", app.command, path, total, file); !st) return st;
        app.preloads.push_back(std::move(file));
    }
    for (const std::string& given : app.preload_files) {
        runtime::PreloadFile file;
        file.name = destination_of(given);
        if (Status st = runtime::check_preload_name(file.name); !st) {
            return {Errc::bad_param, fmt::format("--preload-files {}: {}", given, st.message())};
        }
        for (const runtime::PreloadFile& other : app.preloads) {
            if (!other.binary && other.name == file.name) {
                return {Errc::bad_param, fmt::format("--preload-files: two files would be written as '{}'", file.name)};
            }
        }
        if (Status st = read_file("--preload-files", given, given, total, file); !st) return st;
        app.preloads.push_back(std::move(file));
    }
    return {};
}

}  // namespace

Status read_preloads(Request& request)
{
    uint64_t total = 0;
    for (AppContext& app : request.apps) {
        if (Status st = read_app(app, total); !st) return st;
    }
    return {};
}

}  // namespace prte::prun
