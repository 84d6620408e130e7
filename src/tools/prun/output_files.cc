#include "tools/prun/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "tools/prun/output_writer.h"
#include "util/output.h"

namespace prte::prun {

OutputFiles::~OutputFiles()
{
    for (auto& [path, fd] : fds_) {
        if (fd >= 0) ::close(fd);
    }
}

std::string OutputFiles::path_of(const std::string& job, uint32_t rank, bool to_stdout) const
{
    std::string n = fmt::format("{:0{}}", rank, spec_.rank_digits);
    if (spec_.kind == FileOutput::Kind::file) return fmt::format("{}.{}.{}", spec_.path, job, n);
    std::string dir = spec_.jobid ? fmt::format("{}/{}/rank.{}", spec_.path, job, n) : fmt::format("{}/rank.{}", spec_.path, n);
    return dir + (to_stdout ? "/stdout" : "/stderr");
}

int OutputFiles::open_for(const std::string& path)
{
    auto it = fds_.find(path);
    if (it != fds_.end()) return it->second;
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    int fd = ec ? -1 : ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        output::error("cannot write output to {}: {}", path, ec ? ec.message() : std::strerror(errno));
    }
    fds_[path] = fd;
    return fd;
}

void OutputFiles::write(const std::string& job, uint32_t rank, bool to_stdout, std::string_view data)
{
    if (!active() || data.empty()) return;
    std::string path = path_of(job, rank, to_stdout || spec_.kind == FileOutput::Kind::file);
    int fd = open_for(path);
    if (fd < 0) return;
    if (!write_all(fd, data)) {
        output::error("cannot write output to {}: {}", path, std::strerror(errno));
        ::close(fd);
        fds_[path] = -1;
    }
}

}  // namespace prte::prun
