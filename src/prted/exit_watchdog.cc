#include "prted/exit_watchdog.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "runtime/runtime.h"

namespace prte::prted::exit_watchdog {
namespace {

using Clock = std::chrono::steady_clock;

struct Watch {
    std::mutex mutex;
    std::thread thread;
    int wake_fd = -1;    // eventfd: tells the thread its state changed
    std::vector<int> master_fds;  // our own duplicates of the sockets of the connections to the master
    bool stopping = false;
    std::optional<Clock::time_point> deadline;
    std::string reason;
    std::chrono::milliseconds timeout{0};
    std::string session_dir;  // set before the thread starts, then only read
};

Watch& watch()
{
    static Watch* w = new Watch;  // never destroyed: the thread may outlive static destruction
    return *w;
}

void wake(Watch& w)
{
    uint64_t one = 1;
    if (w.wake_fd >= 0) (void)!write(w.wake_fd, &one, sizeof(one));
}

// The parent pid in /proc/<pid>/stat, after the command name (which may hold spaces and parens).
std::optional<pid_t> parent_of(const std::string& pid)
{
    std::ifstream in("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    size_t close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    if (!(rest >> state >> ppid)) return std::nullopt;
    return ppid;
}

// Kills every process this daemon started, with their process groups (odls makes each child the
// leader of its own group, so whatever it forked goes too). Reads /proc rather than the daemon's
// own records: those belong to the progress thread, which may be the one that is stuck.
int kill_children()
{
    int killed = 0;
    DIR* proc = opendir("/proc");
    if (!proc) return 0;
    pid_t self = getpid();
    while (dirent* e = readdir(proc)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        if (parent_of(e->d_name) != self) continue;
        pid_t child = static_cast<pid_t>(pid);
        if (getpgid(child) == child) kill(-child, SIGKILL);
        kill(child, SIGKILL);
        ++killed;
    }
    closedir(proc);
    return killed;
}

[[noreturn]] void end_daemon(const std::string& reason, std::chrono::milliseconds timeout, const std::string& session_dir)
{
    int killed = kill_children();
    runtime::remove_session_dir(session_dir);
    // write(2), not stdio or our output streams: their locks may be held by the stuck thread.
    std::string line = fmt::format(
        "prted (pid {}): its exit did not finish within {:.1f} s of {}: killed {} local process(es) and "
        "exiting (prte_daemon_exit_timeout)\n",
        getpid(), static_cast<double>(timeout.count()) / 1000.0, reason, killed);
    (void)!write(STDERR_FILENO, line.data(), line.size());
    _exit(1);
}

void run(Watch& w)
{
    while (true) {
        std::vector<pollfd> fds{{w.wake_fd, POLLIN, 0}};
        int timeout_ms = -1;
        {
            std::lock_guard<std::mutex> lock(w.mutex);
            if (w.stopping) return;
            for (int fd : w.master_fds) fds.push_back({fd, POLLRDHUP, 0});
            if (w.deadline) {
                auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*w.deadline - Clock::now());
                if (left.count() <= 0) end_daemon(w.reason, w.timeout, w.session_dir);
                timeout_ms = static_cast<int>(left.count()) + 1;
            }
        }
        int n = poll(fds.data(), fds.size(), timeout_ms);
        if (n < 0 && errno != EINTR) return;  // cannot watch at all; the event loop still handles exits
        if (fds[0].revents & POLLIN) {
            uint64_t count = 0;
            (void)!read(w.wake_fd, &count, sizeof(count));
        }
        bool all_gone = false;
        {
            std::lock_guard<std::mutex> lock(w.mutex);
            for (size_t i = 1; i < fds.size(); ++i) {
                if (!(fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) continue;
                auto it = std::find(w.master_fds.begin(), w.master_fds.end(), fds[i].fd);
                if (it == w.master_fds.end()) continue;
                close(*it);
                w.master_fds.erase(it);
                all_gone = w.master_fds.empty();
            }
        }
        if (all_gone) arm("the connection to the master closed");
    }
}

}  // namespace

void start(std::chrono::milliseconds timeout, std::string session_dir)
{
    Watch& w = watch();
    w.timeout = timeout;
    w.session_dir = std::move(session_dir);
    w.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w.wake_fd < 0) return;
    // Signals belong to the event loop's thread: block them here so none is delivered to this one.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    w.thread = std::thread([&w] { run(w); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void watch_master_socket(int fd)
{
    Watch& w = watch();
    if (fd < 0) return;
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) return;
    {
        std::lock_guard<std::mutex> lock(w.mutex);
        w.master_fds.push_back(copy);
    }
    wake(w);
}

void arm(const std::string& reason)
{
    Watch& w = watch();
    {
        std::lock_guard<std::mutex> lock(w.mutex);
        if (w.deadline) return;
        w.deadline = Clock::now() + w.timeout;
        w.reason = reason;
    }
    wake(w);
}

void stop()
{
    Watch& w = watch();
    {
        std::lock_guard<std::mutex> lock(w.mutex);
        w.stopping = true;
    }
    wake(w);
    if (w.thread.joinable()) w.thread.join();
}

}  // namespace prte::prted::exit_watchdog
