#include "mca/odls/default/odls_default_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <utility>

#include <fmt/format.h>

#include "util/inherited_fds.h"

namespace prte::odls::default_component {
namespace {

// A pipe whose ends close themselves unless released.
struct Pipe {
    int read = -1;
    int write = -1;
    ~Pipe()
    {
        if (read >= 0) ::close(read);
        if (write >= 0) ::close(write);
    }
    int open()
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
        read = fds[0];
        write = fds[1];
        return 0;
    }
    int release_read() { return std::exchange(read, -1); }
    int release_write() { return std::exchange(write, -1); }
};

// ---- child side: async-signal-safe calls only, no allocation, no locks ----

[[noreturn]] void fail(int status_fd, FailedStep step, int error)
{
    ChildFailure failure{step, error};
    // One write of a few bytes to a pipe is atomic; nothing useful can be done if it fails.
    ssize_t ignored = ::write(status_fd, &failure, sizeof(failure));
    (void)ignored;
    ::_exit(exit_status_for(failure));
}

// Handlers first, then the mask (blocked by the parent across fork): a signal that arrived
// meanwhile is then delivered with its default action, never to a handler of the DVM's.
void reset_signals()
{
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);  // EINVAL for glibc's own: fine
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Puts `fds` on 0, 1, 2. They are first moved above 2, so that a daemon started with its stdio
// closed (whose pipes may then be 0..2) does not overwrite one with another.
bool install_stdio(const int (&fds)[3])
{
    int high[3];
    for (int i = 0; i < 3; ++i) {
        high[i] = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
        if (high[i] < 0) return false;
    }
    for (int i = 0; i < 3; ++i) {
        if (::dup2(high[i], i) < 0) return false;  // dup2's new descriptor is not close-on-exec
    }
    return true;
}

[[noreturn]] void run_child(const SpawnRequest& request, int status_fd, int stdin_fd, int stdout_fd, int stderr_fd,
                            char* const* argv, char* const* envp, char* const* candidates)
{
    ::setpgid(0, 0);
    // A daemon killed outright (kill -9, the OOM killer) cannot kill its processes: the kernel
    // does it for the direct child, so a lost daemon leaves nothing orphaned on its node.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    reset_signals();
    if (!install_stdio({stdin_fd, stdout_fd, stderr_fd})) fail(status_fd, FailedStep::setup, errno);
    util::mark_inherited_fds_cloexec();
    if (request.inherited_fd >= 0 && ::fcntl(request.inherited_fd, F_SETFD, 0) != 0) {
        fail(status_fd, FailedStep::setup, errno);
    }
    if (!request.working_dir.empty() && ::chdir(request.working_dir.c_str()) != 0) {
        fail(status_fd, FailedStep::working_dir, errno);
    }
    if (request.cpus && ::sched_setaffinity(0, sizeof(cpu_set_t), &*request.cpus) != 0) {
        fail(status_fd, FailedStep::binding, errno);
    }
    // Written by the process itself, so it travels with the rank's own stderr (write() is safe here).
    if (!request.binding_report.empty()) {
        ssize_t ignored = ::write(STDERR_FILENO, request.binding_report.data(), request.binding_report.size());
        (void)ignored;
    }
    // execvp's rules: a candidate that does not exist is skipped; one that exists but may not be
    // run is remembered, so "Permission denied" wins over a later "No such file".
    int error = ENOENT;
    bool denied = false;
    for (char* const* path = candidates; *path; ++path) {
        ::execve(*path, argv, envp);
        if (errno == EACCES) {
            denied = true;
        } else if (errno != ENOENT && errno != ENOTDIR) {
            error = errno;
            break;
        }
    }
    fail(status_fd, FailedStep::exec, denied && error == ENOENT ? EACCES : error);
}

std::vector<char*> pointers(const std::vector<std::string>& strings)
{
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

Status os_error(const char* what)
{
    return {Errc::out_of_resource, fmt::format("{}: {}", what, strerror(errno))};
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

int exit_status_for(const ChildFailure& failure)
{
    if (failure.step != FailedStep::exec) return 127;
    switch (failure.error) {
    case EACCES:
    case EPERM:
    case ENOEXEC:
    case EISDIR:
    case ETXTBSY: return 126;
    default: return 127;
    }
}

Status spawn(const SpawnRequest& request, SpawnedChild& child)
{
    // Everything the child needs is built here: after vfork it may not allocate.
    std::vector<char*> argv = pointers(request.argv);
    std::vector<char*> envp = pointers(request.env);
    std::vector<char*> candidates = pointers(request.candidates);

    Pipe status, out, err, in;
    if (status.open() != 0 || out.open() != 0 || (!request.merge_stderr && err.open() != 0) ||
        (request.stdin_pipe && in.open() != 0)) {
        return os_error("cannot create the pipes for the child");
    }
    // The child's end of its stdin: the read end of `in`, or /dev/null.
    int stdin_fd = request.stdin_pipe ? in.release_read() : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (stdin_fd < 0) return os_error("cannot open /dev/null for the child's stdin");

    // Signals stay blocked from before fork until the child has reset its handlers: the child
    // inherits the DVM's handlers, and libevent's writes the signal into a socket the DVM shares,
    // so a SIGTERM sent to a child that had not reset them yet (a job being aborted while its
    // ranks start) reached the DVM's loop as if the DVM itself had been told to stop.
    sigset_t all, saved;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &saved);
    // vfork, not fork: the child only makes system calls on data prepared above, then execs or
    // _exits, and the DVM is spared copying its page tables for each process and the
    // copy-on-write faults and TLB shootdowns that followed in its threads (about 40 % of the
    // DVM's CPU per launched /bin/true). The child shares our memory but not our descriptor table
    // nor our signal handlers.
    pid_t pid = ::vfork();
    if (pid == 0) {
        run_child(request, status.write, stdin_fd, out.write, request.merge_stderr ? out.write : err.write,
                  argv.data(), envp.data(), candidates.data());
    }
    int fork_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    ::close(stdin_fd);
    if (pid < 0) {
        errno = fork_errno;
        return os_error("cannot fork");
    }
    // Also from the parent, so that the group exists before anyone signals it, whichever of the
    // two runs first. EACCES once the child has exec'd is harmless: it did it itself.
    ::setpgid(pid, pid);
    child.pid = pid;
    child.status_fd = status.release_read();
    child.stdout_fd = out.release_read();
    child.stderr_fd = request.merge_stderr ? -1 : err.release_read();
    child.stdin_fd = request.stdin_pipe ? in.release_write() : -1;
    for (int fd : {child.status_fd, child.stdout_fd, child.stderr_fd, child.stdin_fd}) {
        if (fd >= 0) set_nonblocking(fd);
    }
    return {};
}

ExecOutcome read_exec_outcome(int status_fd, ChildFailure& failure)
{
    for (;;) {
        ssize_t n = ::read(status_fd, &failure, sizeof(failure));
        if (n == 0) return ExecOutcome::started;
        if (n == static_cast<ssize_t>(sizeof(failure))) return ExecOutcome::failed;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return ExecOutcome::pending;
        // A short read cannot happen (the write is atomic); a read error leaves us not knowing
        // why the child did not start, which is still a failure to start.
        failure = {FailedStep::setup, n < 0 ? errno : EIO};
        return ExecOutcome::failed;
    }
}

}  // namespace prte::odls::default_component
