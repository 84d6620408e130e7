// A child process watched from the progress loop: a resource manager's command (srun, salloc,
// scontrol) that a component runs without ever blocking the loop. Its standard output and error come
// back line by line, its end through a pidfd (so no SIGCHLD handler is shared with anyone and no
// other child is ever reaped by mistake), and its standard input is a pipe this object holds: a
// command that reads its stdin to the end (a holder of a Slurm allocation) lives as long as the
// pipe is open, and so never outlives this process, even one killed with SIGKILL.
//
// Each child leads its own process group (a ^C at the terminal is the parent's to handle).
// Everything here runs on the progress thread; callbacks are called there.
#pragma once

#include <sys/types.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "util/status.h"

struct event;
struct event_base;

namespace prte::runtime {

class ChildProcess {
  public:
    struct Spec {
        std::vector<std::string> argv;
        // Variables removed from the parent's environment for the child (exact names, or prefixes
        // ending in '*'), then those set.
        std::vector<std::string> env_unset;
        std::vector<std::pair<std::string, std::string>> env_set;
        // Written to the child's stdin at once; stdin is then closed unless keep_stdin_open.
        std::string stdin_text;
        bool keep_stdin_open = false;
        std::string cwd;  // empty: the parent's
    };
    using LineHandler = std::function<void(const std::string& line)>;
    // The wait status (as from waitpid), once the output is drained too; kStatusUnknown when
    // another waitpid in this process took the status first.
    using ExitHandler = std::function<void(int wait_status)>;
    static constexpr int kStatusUnknown = -1;

    ChildProcess() = default;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    // A child still running is sent SIGTERM and waited for (up to 5 s, then SIGKILL): nothing
    // started here outlives its owner.
    ~ChildProcess();

    Status start(event_base* base, const Spec& spec, LineHandler on_line, ExitHandler on_exit);
    // Closes the child's stdin (a holder then ends by itself).
    void close_stdin();
    // Sends `signal` to the child's process group, if it is still running.
    void signal(int signal);
    // Blocks until the child has ended or `seconds` passed (for shutdown, when the loop no
    // longer runs); true if it ended.
    bool wait_for_exit(int seconds);
    // Whether any process of the child's group is left. What it started can outlive it: a shell
    // agent killed by a signal leaves the daemon it was running, still shutting down.
    bool group_alive() const;
    // Sends `signal` to what is left of the child's process group, even once the child has ended.
    void signal_group(int signal);

    bool running() const { return pid_ > 0 && !exited_; }
    pid_t pid() const { return pid_; }
    // The last lines it printed, joined with " | ", for an error message.
    std::string tail() const;
    static std::string describe(int wait_status);

  private:
    static void on_output(int fd, short what, void* arg);
    static void on_pidfd(int fd, short what, void* arg);
    void read_output();
    void finish();
    void release_events();

    pid_t pid_ = 0;
    bool exited_ = false;
    bool reported_ = false;
    int wait_status_ = 0;
    int stdin_fd_ = -1;
    int output_fd_ = -1;
    int pidfd_ = -1;
    event* output_ev_ = nullptr;
    event* pidfd_ev_ = nullptr;
    std::string partial_;
    std::deque<std::string> last_lines_;
    LineHandler on_line_;
    ExitHandler on_exit_;
};

}  // namespace prte::runtime
