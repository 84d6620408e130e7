#include "tools/prte/daemonize.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>

#include "util/output.h"

namespace prte::tools {

int Daemonizer::fork_and_wait(bool announce)
{
    int fds[2];
    if (pipe(fds) != 0) {
        output::error("--daemonize: cannot create a pipe: {}", std::strerror(errno));
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        output::error("--daemonize: cannot fork: {}", std::strerror(errno));
        return 1;
    }
    if (pid == 0) {
        close(fds[0]);
        ready_fd_ = fds[1];
        setsid();  // no controlling terminal: a ^C in the shell that started it does not reach it
        return -1;
    }
    close(fds[1]);
    char byte = 0;
    ssize_t n;
    do {
        n = read(fds[0], &byte, 1);
    } while (n < 0 && errno == EINTR);
    close(fds[0]);
    if (n == 1 && byte == 'K') {
        if (announce) std::printf("DVM ready\n");
        return 0;
    }
    // The DVM exited before it was ready; it printed why on the stderr we share.
    int status = 0;
    waitpid(pid, &status, 0);
    return 1;
}

void Daemonizer::report_ready(bool logging)
{
    if (ready_fd_ < 0) return;
    char byte = 'K';
    (void)!write(ready_fd_, &byte, 1);
    close(ready_fd_);
    ready_fd_ = -1;
    if (logging) return;  // the log file holds stdout and stderr already (log_file.h)
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        dup2(null_fd, STDERR_FILENO);
        if (null_fd > STDERR_FILENO) close(null_fd);
    }
}

}  // namespace prte::tools
