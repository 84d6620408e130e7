#include "runtime/dvm_registry.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "util/strings.h"

namespace prte::runtime::dvm_registry {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFilePrefix = "dvm.";
constexpr const char* kTeardownSuffix = ".teardown";
constexpr auto kTeardownNoteLifetime = std::chrono::hours(1);

std::mutex published_mutex;
std::string published_file;  // what unpublish() removes

std::string this_host()
{
    char host[HOST_NAME_MAX + 1] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

std::string format_time(int64_t epoch)
{
    if (epoch <= 0) return "at an unknown time";
    time_t t = static_cast<time_t>(epoch);
    struct tm local {};
    localtime_r(&t, &local);
    char text[64];
    strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
    return text;
}

// Creates the directory if needed; refuses one we do not own or that others can write, since a
// file in it tells tools where to connect.
Status ensure_directory(const std::string& dir)
{
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        return {Errc::internal, fmt::format("cannot create the DVM registry directory {}: {}", dir, std::strerror(errno))};
    }
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0) {
        return {Errc::internal, fmt::format("cannot examine the DVM registry directory {}: {}", dir, std::strerror(errno))};
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
        return {Errc::refused, fmt::format("{} is not a directory owned by this user: remove it, or set TMPDIR elsewhere", dir)};
    }
    if ((st.st_mode & 0077) != 0 && chmod(dir.c_str(), 0700) != 0) {
        return {Errc::refused, fmt::format("{} is accessible to other users and cannot be made private: {}", dir,
                                           std::strerror(errno))};
    }
    return {};
}

// What /proc/<pid>/stat says of a process: its state letter and when it started (epoch seconds).
struct ProcStat {
    char state = '?';
    int64_t started = -1;  // -1 when unknown
};

// A whole file, with read(2). Not through iostreams: libstdc++'s filebuf throws from underflow when
// read() fails, and an istreambuf_iterator does not catch it - reading /proc/<pid>/stat of a process
// that exits meanwhile (ESRCH) killed pterm with SIGABRT at the end of a DVM (issue 14, item 7), and
// so did `--dvm-uri file:<a directory>` (EISDIR).
Status read_text(const std::string& path, std::string& text)
{
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {Errc::not_found, fmt::format("cannot read {}: {}", path, std::strerror(errno))};
    text.clear();
    char buf[4096];
    while (true) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int err = errno;
            close(fd);
            return {Errc::bad_file, fmt::format("cannot read {}: {}", path, std::strerror(err))};
        }
        if (n == 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return {};
}

std::optional<ProcStat> read_proc_stat(pid_t pid)
{
    std::string text;
    if (!read_text(fmt::format("/proc/{}/stat", pid), text)) return std::nullopt;
    // Field 2 (comm) may contain spaces and parentheses: fields resume after the last ')'.
    size_t close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    ProcStat out;
    std::string field;
    // Field 3 is the state; starttime is field 22, in clock ticks since boot.
    for (int i = 3; i <= 22; ++i) {
        if (!(fields >> field)) return out;
        if (i == 3 && !field.empty()) out.state = field[0];
    }
    auto ticks = util::parse_int(field);
    std::string boot;
    (void)read_text("/proc/stat", boot);
    std::istringstream proc_stat(boot);
    std::string line;
    int64_t boot_time = -1;
    while (std::getline(proc_stat, line)) {
        if (util::starts_with(line, "btime ")) {
            if (auto v = util::parse_int(util::trim(line.substr(6)))) boot_time = *v;
            break;
        }
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (ticks && boot_time >= 0 && hz > 0) out.started = boot_time + *ticks / hz;
    return out;
}

// A published DVM is alive while its pid exists and is the same process that wrote the file
// (a pid reused by a later process started after the file was written).
bool is_alive(const Entry& entry)
{
    if (entry.pid <= 0) return false;
    if (!entry.host.empty() && entry.host != this_host()) return true;  // cannot check another node's pids
    return still_running(entry.pid, entry.started > 0 ? entry.started : -1);
}

// A URI given directly, or in a file as written by `prte --report-uri <file>` (its first line).
Status resolve_uri_argument(const std::string& argument, const std::string& option, std::string& uri)
{
    if (!util::starts_with(argument, "file:")) {
        uri = std::string(util::trim(argument));
    } else {
        std::string path = argument.substr(5), text;
        if (Status st = read_text(path, text); !st) return {Errc::not_found, option + ": " + st.message()};
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line) && util::trim(line).empty()) {
        }
        uri = std::string(util::trim(line));
        if (util::starts_with(uri, "uri=")) {  // a registry file given by name
            Entry entry;
            if (Status st = parse(text, path, entry); !st) return {Errc::bad_file, option + ": " + st.message()};
            uri = entry.uri;
        }
        if (uri.empty()) return {Errc::bad_file, fmt::format("{}: {} holds no DVM URI", option, path)};
    }
    if (uri.empty()) return {Errc::bad_param, option + ": the DVM URI is empty"};
    return {};
}

// Completes an entry known only by URI with what the registry knows of it (pid, nspace), so that
// pterm can target the DVM and wait for its pid.
Entry entry_for_uri(const std::string& uri)
{
    for (const Entry& e : list()) {
        if (e.uri == uri) return e;
    }
    Entry entry;
    entry.uri = uri;
    entry.nspace = nspace_from_uri(uri);
    return entry;
}

std::string no_dvm_message()
{
    return "no DVM is running for this user: start one with 'prte --daemonize' (or use prterun)";
}

Status select_by(const std::vector<Entry>& entries, const std::string& what, Entry& out,
                 bool (*match)(const Entry&, const std::string&), const std::string& key)
{
    for (const Entry& e : entries) {
        if (match(e, key)) {
            out = e;
            return {};
        }
    }
    std::string message = fmt::format("no DVM with {} is running for this user", what);
    if (entries.empty()) {
        message += ": start one with 'prte --daemonize' (or use prterun)";
    } else {
        message += "; running:";
        for (const Entry& e : entries) message += "\n  " + describe(e);
    }
    return {Errc::not_found, message};
}

}  // namespace

bool process_alive(pid_t pid)
{
    if (pid <= 0) return false;
    if (kill(pid, 0) != 0 && errno == ESRCH) return false;
    auto stat = read_proc_stat(pid);
    return !stat || (stat->state != 'Z' && stat->state != 'X');  // a zombie has exited
}

int64_t process_started(pid_t pid)
{
    auto stat = read_proc_stat(pid);
    return stat ? stat->started : -1;
}

bool still_running(pid_t pid, int64_t started)
{
    if (!process_alive(pid)) return false;
    // A later process with the same pid started after the one recorded (2 s: the clock-tick
    // rounding of the start time).
    int64_t now_started = process_started(pid);
    return !(started >= 0 && now_started >= 0 && now_started > started + 2);
}

std::string directory()
{
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : "/tmp";
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    return fmt::format("{}/prte.{}", base, getuid());
}

namespace {

// Writes `text` to `file` through a temporary name, so that a reader sees all of it or nothing.
Status write_atomically(const std::string& dir, const std::string& name, const std::string& text)
{
    std::string file = fmt::format("{}/{}", dir, name);
    std::string temp = fmt::format("{}/.{}.tmp", dir, name);
    int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return {Errc::internal, fmt::format("cannot write {}: {}", temp, std::strerror(errno))};
    const char* data = text.data();
    size_t left = text.size();
    while (left > 0) {
        ssize_t n = write(fd, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = errno;
            close(fd);
            unlink(temp.c_str());
            return {Errc::internal, fmt::format("cannot write {}: {}", temp, std::strerror(err))};
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int err = errno;
        unlink(temp.c_str());
        return {Errc::internal, fmt::format("cannot write {}: {}", temp, std::strerror(err))};
    }
    if (rename(temp.c_str(), file.c_str()) != 0) {
        int err = errno;
        unlink(temp.c_str());
        return {Errc::internal, fmt::format("cannot publish {}: {}", file, std::strerror(err))};
    }
    return {};
}

std::string teardown_note_name(pid_t pid) { return fmt::format("{}{}{}", kFilePrefix, pid, kTeardownSuffix); }

// Notes of DVMs long gone whose pterm never came to read them.
void sweep_old_teardown_notes(const std::string& dir)
{
    std::error_code ec;
    auto now = fs::file_time_type::clock::now();
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!util::starts_with(name, kFilePrefix) || !name.ends_with(kTeardownSuffix)) continue;
        std::error_code tec;
        auto written = fs::last_write_time(it->path(), tec);
        if (!tec && now - written > kTeardownNoteLifetime) fs::remove(it->path(), tec);
    }
}

}  // namespace

Status publish(const std::string& uri, const std::string& dvm_nspace, const std::string& log,
               const std::string& daemon_logs, bool system_server)
{
    std::string dir = directory();
    if (Status st = ensure_directory(dir); !st) return st;
    sweep_old_teardown_notes(dir);
    std::string name = fmt::format("{}{}", kFilePrefix, getpid());
    std::string text = fmt::format("uri={}\npid={}\nnspace={}\nhost={}\nstarted={}\n", uri, getpid(), dvm_nspace,
                                   this_host(), static_cast<int64_t>(time(nullptr)));
    if (!log.empty()) text += fmt::format("log={}\n", log);
    if (!daemon_logs.empty()) text += fmt::format("daemon_logs={}\n", daemon_logs);
    if (system_server) text += "system=1\n";
    if (Status st = write_atomically(dir, name, text); !st) return st;
    std::lock_guard<std::mutex> lock(published_mutex);
    published_file = fmt::format("{}/{}", dir, name);
    return {};
}

Status write_teardown_note(const std::string& text)
{
    std::string dir = directory();
    if (Status st = ensure_directory(dir); !st) return st;
    return write_atomically(dir, teardown_note_name(getpid()), text);
}

std::string take_teardown_note(pid_t pid)
{
    std::string path = fmt::format("{}/{}", directory(), teardown_note_name(pid));
    std::string text;
    if (!read_text(path, text)) return {};
    unlink(path.c_str());
    // The note may have been the last thing there (the DVM and its daemons gone before pterm read
    // it): an empty per-user directory is not left behind.
    remove_directory_if_empty();
    return text;
}

void remove_directory_if_empty() { rmdir(directory().c_str()); }

void unpublish()
{
    std::lock_guard<std::mutex> lock(published_mutex);
    if (published_file.empty()) return;
    unlink(published_file.c_str());
    published_file.clear();
}

Status parse(const std::string& text, const std::string& file, Entry& out)
{
    Entry entry;
    entry.file = file;
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        std::string_view trimmed = util::trim(line);
        if (trimmed.empty()) continue;
        size_t eq = trimmed.find('=');
        if (eq == std::string_view::npos) return {Errc::bad_file, fmt::format("{}:{}: expected key=value", file, number)};
        std::string key(trimmed.substr(0, eq)), value(trimmed.substr(eq + 1));
        if (key == "uri") {
            entry.uri = value;
        } else if (key == "nspace") {
            entry.nspace = value;
        } else if (key == "host") {
            entry.host = value;
        } else if (key == "log") {
            entry.log = value;
        } else if (key == "daemon_logs") {
            entry.daemon_logs = value;
        } else if (key == "system") {
            entry.system_server = value == "1";
        } else if (key == "pid" || key == "started") {
            auto v = util::parse_int(value);
            if (!v || *v <= 0) return {Errc::bad_file, fmt::format("{}:{}: bad {} '{}'", file, number, key, value)};
            if (key == "pid") {
                entry.pid = static_cast<pid_t>(*v);
            } else {
                entry.started = *v;
            }
        }
        // Unknown keys are ignored so that a later version may add some.
    }
    if (entry.uri.empty()) return {Errc::bad_file, fmt::format("{}: no uri= line", file)};
    if (entry.pid <= 0) return {Errc::bad_file, fmt::format("{}: no pid= line", file)};
    out = entry;
    return {};
}

std::vector<Entry> list()
{
    std::vector<Entry> entries;
    std::error_code ec;
    fs::directory_iterator it(directory(), ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!util::starts_with(name, kFilePrefix)) continue;
        if (!util::parse_int(name.substr(std::strlen(kFilePrefix)))) continue;
        std::string text;
        if (!read_text(it->path().string(), text)) continue;  // removed meanwhile
        Entry entry;
        if (!parse(text, it->path().string(), entry)) {
            // Half-written files never appear (rename is atomic), so this one is damaged: a DVM
            // that cannot be reached through it is as good as gone.
            unlink(it->path().c_str());
            continue;
        }
        if (!is_alive(entry)) {
            unlink(it->path().c_str());
            continue;
        }
        entries.push_back(entry);
    }
    if (entries.empty()) remove_directory_if_empty();  // what a killed DVM left may have been all
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.started != b.started ? a.started < b.started : a.pid < b.pid;
    });
    return entries;
}

Status locate(const Selector& selector, Entry& out)
{
    if (!selector.dvm_uri.empty() && !selector.dvm.empty()) {
        return {Errc::bad_param, "--dvm-uri and --dvm both choose a DVM: give only one"};
    }
    if (!selector.dvm_uri.empty()) {
        std::string uri;
        if (Status st = resolve_uri_argument(selector.dvm_uri, "--dvm-uri", uri); !st) return st;
        out = entry_for_uri(uri);
        return {};
    }
    const std::string& dvm = selector.dvm;
    if (!dvm.empty()) {
        if (util::starts_with(dvm, "file:")) {
            std::string uri;
            if (Status st = resolve_uri_argument(dvm, "--dvm", uri); !st) return st;
            out = entry_for_uri(uri);
            return {};
        }
        if (util::starts_with(dvm, "uri:")) {
            std::string uri;
            if (Status st = resolve_uri_argument(dvm.substr(4), "--dvm", uri); !st) return st;
            out = entry_for_uri(uri);
            return {};
        }
        if (util::starts_with(dvm, "pid:") || util::parse_int(dvm)) {
            std::string text = util::starts_with(dvm, "pid:") ? dvm.substr(4) : dvm;
            auto pid = util::parse_int(text);
            if (!pid || *pid <= 0) return {Errc::bad_param, fmt::format("--dvm {}: '{}' is not a pid", dvm, text)};
            return select_by(
                list(), fmt::format("pid {}", *pid), out,
                [](const Entry& e, const std::string& key) { return std::to_string(e.pid) == key; },
                std::to_string(*pid));
        }
        if (util::starts_with(dvm, "ns:")) {
            std::string ns = dvm.substr(3);
            return select_by(
                list(), fmt::format("namespace {}", ns), out,
                [](const Entry& e, const std::string& key) { return e.nspace == key; }, ns);
        }
        // PRRTE's searches: "search" takes the first DVM found (the oldest); "system" only a DVM
        // started with prte --system-server; "system-first" such a DVM if there is one.
        if (dvm == "search" || dvm == "system" || dvm == "system-first") {
            std::vector<Entry> entries = list();
            for (const Entry& e : entries) {
                if (e.system_server || dvm == "search") {
                    out = e;
                    return {};
                }
            }
            if (dvm == "system-first" && !entries.empty()) {
                out = entries.front();
                return {};
            }
            return {Errc::not_found, dvm == "system" ? fmt::format("--dvm system: no DVM started with prte --system-server "
                                                                   "runs for this user (looked in {})",
                                                                   directory())
                                                     : no_dvm_message()};
        }
        return {Errc::bad_param, fmt::format("--dvm {}: expected pid:<n>, file:<path>, uri:<uri>, ns:<namespace>, "
                                             "search, system or system-first",
                                             dvm)};
    }

    std::vector<Entry> entries = list();
    if (entries.empty()) return {Errc::not_found, no_dvm_message()};
    if (entries.size() > 1) {
        std::string message =
            fmt::format("{} DVMs are running for this user: choose one with --dvm pid:<n>", entries.size());
        for (const Entry& e : entries) message += "\n  " + describe(e);
        return {Errc::bad_param, message};
    }
    out = entries.front();
    return {};
}

std::string describe(const Entry& entry)
{
    std::string text = entry.pid > 0 ? fmt::format("pid {}", entry.pid) : std::string("pid unknown");
    if (!entry.host.empty()) text += " on " + entry.host;
    text += entry.started > 0 ? ", started " + format_time(entry.started) : std::string();
    text += ", uri " + entry.uri;
    return text;
}

std::string nspace_from_uri(const std::string& uri)
{
    size_t semi = uri.find(';');
    if (semi == std::string::npos) return {};
    std::string id = uri.substr(0, semi);
    size_t dot = id.rfind('.');
    if (dot == std::string::npos || !util::parse_int(id.substr(dot + 1))) return {};
    return id.substr(0, dot);
}

}  // namespace prte::runtime::dvm_registry
