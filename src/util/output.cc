#include "util/output.h"

#include <unistd.h>

#include <climits>
#include <mutex>

namespace prte::output {
namespace {

std::string& name_storage()
{
    static std::string name = "prte";
    return name;
}

std::string& identity_storage()
{
    static std::string identity = [] {
        char host[HOST_NAME_MAX + 1] = {};
        gethostname(host, sizeof(host) - 1);
        return std::string(host);
    }();
    return identity;
}

// One write() per line, so lines from several threads or processes sharing stderr never interleave.
void write_line(const std::string& line)
{
    std::string out = line;
    if (out.empty() || out.back() != '\n') out += '\n';
    const char* data = out.data();
    size_t left = out.size();
    while (left > 0) {
        ssize_t n = ::write(STDERR_FILENO, data, left);
        if (n <= 0) return;
        data += n;
        left -= static_cast<size_t>(n);
    }
}

}  // namespace

void set_program_name(std::string name) { name_storage() = std::move(name); }
const std::string& program_name() { return name_storage(); }
void set_identity(std::string identity) { identity_storage() = std::move(identity); }

void write_error_line(std::string_view message)
{
    write_line(fmt::format("{}: error: {}", program_name(), message));
}

void write_warning_line(std::string_view message)
{
    write_line(fmt::format("{}: warning: {}", program_name(), message));
}

void write_note_line(std::string_view message)
{
    write_line(fmt::format("{}: note: {}", program_name(), message));
}

void VerboseStream::emit(std::string_view message) const
{
    write_line(fmt::format("[{}:{}] {}: {}", identity_storage(), getpid(), name_, message));
}

}  // namespace prte::output
