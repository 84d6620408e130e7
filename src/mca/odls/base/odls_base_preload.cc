#include "mca/odls/base/odls_base_preload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "mca/odls/base/odls_base.h"

namespace prte::odls::base {
namespace {

const output::VerboseStream& verbose() { return framework().verbose(); }

std::string error_text(int error) { return std::strerror(error); }

// Writes `content` to `path` with `mode`, through a temporary name renamed into place. Returns
// errno (0 on success).
int write_whole(const std::string& path, const std::vector<uint8_t>& content, mode_t mode)
{
    std::string temporary = fmt::format("{}.prte-tmp.{}", path, getpid());
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return errno;
    size_t done = 0;
    int error = 0;
    while (done < content.size()) {
        ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = errno;
            break;
        }
        done += static_cast<size_t>(n);
    }
    // The source's bits exactly (the umask does not trim them): a preloaded script stays runnable.
    if (!error && ::fchmod(fd, mode) != 0) error = errno;
    if (::close(fd) != 0 && !error) error = errno;
    if (!error && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
    if (error) ::unlink(temporary.c_str());
    return error;
}

// Whether the regular file at `path` holds exactly `content`.
bool same_contents(const std::string& path, const std::vector<uint8_t>& content)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    std::vector<uint8_t> buffer(64 * 1024);
    size_t offset = 0;
    bool same = true;
    while (same) {
        ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            same = n == 0 && offset == content.size();
            break;
        }
        same = offset + static_cast<size_t>(n) <= content.size() &&
               std::memcmp(buffer.data(), content.data() + offset, static_cast<size_t>(n)) == 0;
        offset += static_cast<size_t>(n);
    }
    ::close(fd);
    return same;
}

}  // namespace

PreloadPlacer::PreloadPlacer(std::string session_dir, std::string node_name)
    : session_dir_(std::move(session_dir)), node_name_(std::move(node_name))
{
}

Status PreloadPlacer::place(const runtime::Job& job, const runtime::AppContext& app)
{
    if (app.preload.empty()) return {};
    Placed& placed = jobs_[job.nspace];
    if (!placed.apps.insert(app.index).second) return {};
    for (const runtime::PreloadFile& file : app.preload) {
        Status st;
        if (file.binary) {
            std::string path;
            st = place_program(job, file, placed, path);
            if (st) placed.programs[app.index] = path;
        } else {
            st = place_file(app, file, placed);
        }
        if (!st) {
            placed.apps.erase(app.index);
            return st;
        }
    }
    return {};
}

Status PreloadPlacer::place_program(const runtime::Job& job, const runtime::PreloadFile& file, Placed& placed,
                                    std::string& path)
{
    auto failure = [&](const std::string& where, int error) {
        return Status(Errc::unreachable, fmt::format("node {}: cannot write the preloaded program '{}' to {}: {}",
                                                     node_name_, file.name, where, error_text(error)));
    };
    if (session_dir_.empty()) return failure("a session directory", ENOENT);
    // The job's own directory here, as pmix/register.cc names it (PMIX_NSDIR).
    std::string dir = session_dir_ + "/" + job.nspace;
    if (placed.job_dir.empty()) {
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return failure(dir, errno);
        placed.job_dir = dir;
    }
    path = dir + "/" + file.name;
    // Its owner may always run it, whatever bits the source had for others.
    if (int error = write_whole(path, file.content, (file.mode & 07777) | S_IRWXU); error) return failure(path, error);
    verbose()(5, "node {}: job {}: wrote the preloaded program '{}' ({} bytes) to {}", node_name_, job.nspace,
              file.name, file.content.size(), path);
    return {};
}

Status PreloadPlacer::place_file(const runtime::AppContext& app, const runtime::PreloadFile& file, Placed& placed)
{
    const std::string dir = app.working_dir.empty() ? std::string(".") : app.working_dir;
    const std::string path = dir + "/" + file.name;
    auto failure = [&](const std::string& why) {
        return Status(Errc::unreachable,
                      fmt::format("node {}: cannot preload '{}' into {}: {}", node_name_, file.name, dir, why));
    };
    // Directories the name asks for are made as the user's umask says.
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec) return failure(ec.message());
    struct stat there {};
    if (::stat(path.c_str(), &there) == 0) {  // a link to that very file is that file
        static const std::string here = runtime::local_machine();
        bool same_file = !here.empty() && here == file.machine && there.st_dev == file.device && there.st_ino == file.inode;
        if (same_file || (S_ISREG(there.st_mode) && same_contents(path, file.content))) {
            verbose()(5, "node {}: left '{}' in {}: {} is already there", node_name_, file.name, dir,
                      same_file ? "the very file prun read (a shared file system)" : "a file of the same contents");
            return {};
        }
        return failure("a different file of that name is there, and prte does not overwrite what it did not write");
    }
    if (errno != ENOENT) return failure(error_text(errno));
    if (int error = write_whole(path, file.content, file.mode & 07777); error) return failure(error_text(error));
    placed.files.push_back(path);
    verbose()(5, "node {}: wrote the preloaded file '{}' ({} bytes) to {}", node_name_, file.name, file.content.size(),
              path);
    return {};
}

std::string PreloadPlacer::program_of(const std::string& nspace, int app_index) const
{
    auto job = jobs_.find(nspace);
    if (job == jobs_.end()) return {};
    auto program = job->second.programs.find(app_index);
    return program == job->second.programs.end() ? std::string() : program->second;
}

void PreloadPlacer::release(const std::string& nspace)
{
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return;
    for (const std::string& path : it->second.files) {
        if (::unlink(path.c_str()) == 0) verbose()(5, "node {}: job {}: removed the preloaded file {}", node_name_, nspace, path);
    }
    if (!it->second.job_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(it->second.job_dir, ec);
        verbose()(5, "node {}: job {}: removed {}", node_name_, nspace, it->second.job_dir);
    }
    jobs_.erase(it);
}

void PreloadPlacer::release_all()
{
    while (!jobs_.empty()) release(jobs_.begin()->first);
}

}  // namespace prte::odls::base
