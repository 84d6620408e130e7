#include "runtime/child_process.h"

#include <dirent.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "util/inherited_fds.h"
#include "util/strings.h"

extern char** environ;

namespace prte::runtime {
namespace {

constexpr size_t kTailLines = 8;

bool unset_matches(const std::vector<std::string>& patterns, const std::string& name)
{
    for (const auto& p : patterns) {
        if (!p.empty() && p.back() == '*') {
            if (name.compare(0, p.size() - 1, p, 0, p.size() - 1) == 0) return true;
        } else if (name == p) {
            return true;
        }
    }
    return false;
}

// The child's environment, built before fork (nothing may allocate between fork and exec).
std::vector<std::string> child_environment(const ChildProcess::Spec& spec)
{
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        std::string name = entry.substr(0, entry.find('='));
        if (unset_matches(spec.env_unset, name)) continue;
        bool replaced = false;
        for (const auto& [k, v] : spec.env_set) replaced = replaced || k == name;
        if (!replaced) env.push_back(std::move(entry));
    }
    for (const auto& [k, v] : spec.env_set) env.push_back(k + "=" + v);
    return env;
}

}  // namespace

ChildProcess::~ChildProcess()
{
    close_stdin();
    if (running()) {
        signal(SIGTERM);
        if (!wait_for_exit(5)) {
            signal(SIGKILL);
            wait_for_exit(5);
        }
    }
    release_events();
    if (output_fd_ >= 0) ::close(output_fd_);
    if (pidfd_ >= 0) ::close(pidfd_);
}

Status ChildProcess::start(event_base* base, const Spec& spec, LineHandler on_line, ExitHandler on_exit)
{
    if (spec.argv.empty()) return {Errc::bad_param, "no command to run"};
    on_line_ = std::move(on_line);
    on_exit_ = std::move(on_exit);
    std::vector<std::string> argv = spec.argv;
    std::vector<std::string> env = child_environment(spec);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();

    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return {Errc::internal, fmt::format("cannot create a pipe: {}", std::strerror(errno))};
    if (pipe2(out, O_CLOEXEC) != 0) {
        int e = errno;
        ::close(in[0]);
        ::close(in[1]);
        return {Errc::internal, fmt::format("cannot create a pipe: {}", std::strerror(e))};
    }
    // Signals stay blocked across fork so the child never runs the loop's handlers.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        for (int s = 1; s < NSIG; ++s) ::signal(s, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, nullptr);
        setpgid(0, 0);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(out[1], STDERR_FILENO);
        util::mark_inherited_fds_cloexec();
        if (cwd && chdir(cwd) != 0) {
            dprintf(STDERR_FILENO, "cannot change to directory '%s': %s\n", cwd, std::strerror(errno));
            _exit(127);
        }
        execvpe(cargv[0], cargv.data(), cenv.data());
        dprintf(STDERR_FILENO, "cannot run '%s': %s\n", cargv[0], std::strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(in[0]);
    ::close(out[1]);
    if (pid < 0) {
        ::close(in[1]);
        ::close(out[0]);
        return {Errc::internal, fmt::format("cannot fork to run '{}': {}", argv[0], std::strerror(fork_errno))};
    }
    // Also here, so that the group exists before signal() can reach for it (the child may not
    // have run its own setpgid yet).
    setpgid(pid, pid);
    pid_ = pid;
    stdin_fd_ = in[1];
    if (!spec.stdin_text.empty() &&
        ::write(stdin_fd_, spec.stdin_text.data(), spec.stdin_text.size()) != static_cast<ssize_t>(spec.stdin_text.size())) {
        last_lines_.push_back("(could not write its standard input)");
    }
    if (!spec.keep_stdin_open) close_stdin();

    output_fd_ = out[0];
    fcntl(output_fd_, F_SETFL, fcntl(output_fd_, F_GETFL) | O_NONBLOCK);
    output_ev_ = event_new(base, output_fd_, EV_READ | EV_PERSIST, &ChildProcess::on_output, this);
    event_add(output_ev_, nullptr);
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd_ < 0) {
        // No pidfd (a kernel before 5.3): the end of its output stands for its end.
        return {};
    }
    pidfd_ev_ = event_new(base, pidfd_, EV_READ, &ChildProcess::on_pidfd, this);
    event_add(pidfd_ev_, nullptr);
    return {};
}

void ChildProcess::close_stdin()
{
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
}

void ChildProcess::signal(int signal)
{
    if (running() && ::kill(-pid_, signal) != 0) ::kill(pid_, signal);
}

// kill(-pgid, 0) also counts zombies, and an orphan's zombie waits for whoever reaps for init
// (seconds, in some containers): so the group's members are read from /proc, where there is one.
bool ChildProcess::group_alive() const
{
    if (pid_ <= 0) return false;
    DIR* proc = ::opendir("/proc");
    if (!proc) return ::kill(-pid_, 0) == 0 || errno == EPERM;
    bool alive = false;
    while (dirent* entry = ::readdir(proc)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        std::ifstream stat(std::string("/proc/") + entry->d_name + "/stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        size_t end = line.rfind(')');
        if (end == std::string::npos) continue;
        char state = 0;
        long ppid = 0, pgrp = 0;
        if (std::sscanf(line.c_str() + end + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
        if (pgrp == pid_ && state != 'Z' && state != 'X') {
            alive = true;
            break;
        }
    }
    ::closedir(proc);
    return alive;
}

void ChildProcess::signal_group(int signal)
{
    if (group_alive()) ::kill(-pid_, signal);
}

bool ChildProcess::wait_for_exit(int seconds)
{
    if (!running()) return true;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            exited_ = true;
            wait_status_ = status;
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string ChildProcess::tail() const
{
    if (last_lines_.empty()) return "it printed nothing";
    return util::join({last_lines_.begin(), last_lines_.end()}, " | ");
}

std::string ChildProcess::describe(int wait_status)
{
    if (wait_status == kStatusUnknown) return "ended (its exit status was collected elsewhere)";
    if (WIFEXITED(wait_status)) return fmt::format("exited with status {}", WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status)) return fmt::format("was killed by signal {}", WTERMSIG(wait_status));
    return "ended";
}

void ChildProcess::on_output(int, short, void* arg)
{
    auto* self = static_cast<ChildProcess*>(arg);
    self->read_output();
    if (self->output_fd_ >= 0) return;
    // Without a pidfd the end of output stands for the end: the child has closed it, so it is ending.
    if (self->pidfd_ < 0 && !self->exited_) self->wait_for_exit(5);
    self->finish();
}

void ChildProcess::read_output()
{
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(output_fd_, buf, sizeof(buf));
        if (n > 0) {
            partial_.append(buf, static_cast<size_t>(n));
            size_t nl;
            while ((nl = partial_.find('\n')) != std::string::npos) {
                std::string line = partial_.substr(0, nl);
                partial_.erase(0, nl + 1);
                last_lines_.push_back(line);
                if (last_lines_.size() > kTailLines) last_lines_.pop_front();
                if (on_line_) on_line_(line);
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (!partial_.empty()) {
            last_lines_.push_back(partial_);
            if (on_line_) on_line_(partial_);
            partial_.clear();
        }
        if (output_ev_) {
            event_free(output_ev_);
            output_ev_ = nullptr;
        }
        ::close(output_fd_);
        output_fd_ = -1;
        return;
    }
}

void ChildProcess::on_pidfd(int, short, void* arg)
{
    auto* self = static_cast<ChildProcess*>(arg);
    int status = 0;
    pid_t r = ::waitpid(self->pid_, &status, WNOHANG);
    if (r == self->pid_) {
        self->exited_ = true;
        self->wait_status_ = status;
    } else if (r < 0 && errno == ECHILD) {
        // A readable pidfd means it has ended; someone else reaped it, and its status with it.
        self->exited_ = true;
        self->wait_status_ = kStatusUnknown;
    }
    if (self->pidfd_ev_) {
        event_free(self->pidfd_ev_);
        self->pidfd_ev_ = nullptr;
    }
    // Its output may still hold lines (a grandchild may even keep it open: then the exit is
    // reported now, with what was read).
    if (self->output_fd_ >= 0) self->read_output();
    if (self->output_fd_ >= 0 && self->output_ev_) {
        event_free(self->output_ev_);
        self->output_ev_ = nullptr;
        ::close(self->output_fd_);
        self->output_fd_ = -1;
    }
    self->finish();
}

// Reports the end once; the handler may destroy this object, so nothing touches it afterwards.
void ChildProcess::finish()
{
    if (reported_ || !exited_) return;
    reported_ = true;
    ExitHandler handler = std::move(on_exit_);
    if (handler) handler(wait_status_);
}

void ChildProcess::release_events()
{
    if (output_ev_) event_free(output_ev_);
    if (pidfd_ev_) event_free(pidfd_ev_);
    output_ev_ = nullptr;
    pidfd_ev_ = nullptr;
}

}  // namespace prte::runtime
