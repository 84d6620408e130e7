// Starting one child: pipes, fork, and in the child only async-signal-safe calls up to execve
// (the daemon is multi-threaded: PMIx and libevent threads may hold locks at the fork).
//
// Exec failure reaches the parent reliably through a status pipe whose write end is
// close-on-exec: the child writes a ChildFailure and exits if any step fails; a successful execve
// closes the pipe, so the parent reads EOF. The parent never blocks on it: the read end is
// non-blocking and watched by the event loop like the output pipes.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace prte::odls::default_component {

struct SpawnRequest {
    std::vector<std::string> candidates;  // paths execve tries in order (see executable_candidates)
    std::vector<std::string> argv;
    std::vector<std::string> env;          // NAME=value
    std::string working_dir;               // empty: the daemon's own
    std::optional<cpu_set_t> cpus;         // bind to these before exec
    bool merge_stderr = false;             // the child's stderr goes into its stdout pipe
    bool stdin_pipe = false;               // stdin from a pipe the parent writes; else /dev/null
    std::string binding_report;            // written to the child's stderr once bound (--report-bindings)
    int inherited_fd = -1;                 // kept open across exec in the child (its PMI socket, PMI_FD)
};

// The parent's ends, all close-on-exec and non-blocking.
struct SpawnedChild {
    pid_t pid = -1;
    int stdout_fd = -1;
    int stderr_fd = -1;  // -1 when stderr is merged into stdout
    int status_fd = -1;
    int stdin_fd = -1;   // the write end of the child's stdin; -1 when its stdin is /dev/null
};

enum class FailedStep : int32_t { setup = 1, working_dir = 2, binding = 3, exec = 4 };

// What a child that cannot exec writes to the status pipe before it exits.
struct ChildFailure {
    FailedStep step = FailedStep::exec;
    int32_t error = 0;  // errno
};

// The status such a child exits with, the shell's convention: 126 when the program was found but
// cannot be run (permission, format, a directory), 127 otherwise (not found, bad working
// directory, binding refused).
int exit_status_for(const ChildFailure& failure);

// Forks and starts the child, which is put in a process group of its own (pgid = pid) so that
// signals reach whatever it starts too. An error means no child exists (pipe or fork failed).
Status spawn(const SpawnRequest& request, SpawnedChild& child);

enum class ExecOutcome { pending, started, failed };
// Reads the status pipe without blocking: pending (nothing yet), started (EOF: execve
// succeeded), or failed (`failure` filled in).
ExecOutcome read_exec_outcome(int status_fd, ChildFailure& failure);

}  // namespace prte::odls::default_component
