// odls/default: fork/exec of the local processes, their output forwarded chunk by chunk, their
// exits reaped on SIGCHLD, all as events of the progress thread; nothing here ever blocks it.
//
// Per process the state machine sees, in this order:
//   RUNNING (execve succeeded; proc.pid set)  or  FAILED_TO_START (job.abort_message says why,
//   proc.exit_code 126/127 as a shell would), then, in whichever order they happen,
//   IOF_COMPLETE (stdout and stderr both closed) and WAITPID_FIRED (reaped; proc.exit_code, and
//   proc.term_signal with exit_code 128+N when a signal ended it).
// A process that could not even be forked (pipes, fork, PMIx setup, binding) gets only
// FAILED_TO_START, with proc.pid 0: there is nothing to close or reap.
//
// proc.pid is set at the fork; RUNNING waits for the exec to succeed.
//
// Each child leads a process group of its own, and signal()/kill() go to the group, so what it
// started goes too, even after the child itself has exited while its output is still held open.
//
// The job's stdin target (job.stdin_target) reads from a pipe that write_stdin() feeds (see
// odls_default_stdin.h); every other process reads /dev/null.
//
// Only our own children are reaped (waitpid on each known pid, never -1), so other parts of the
// daemon that fork (plm/ssh) keep their own exit statuses.
#pragma once

#include <pmix_common.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mca/odls/base/odls_base_preload.h"
#include "mca/odls/default/odls_default_binding.h"
#include "mca/odls/default/odls_default_stdin.h"
#include "mca/odls/odls.h"
#include "mca/pmi/pmi.h"
#include "runtime/state_machine.h"
#include "runtime/event_loop.h"
#include "runtime/loop_timer.h"

struct event;

namespace prte::odls::default_component {

inline constexpr const char* kComponentName = "default";

// host setup_fork: the PMIx variables for one child.
using EnvProvider = std::function<Status(const runtime::JobPtr& job, runtime::Rank rank, std::vector<std::string>& env)>;
// host deliver_output: one chunk of a child's output; an empty chunk ends that stream.
using OutputSink = std::function<void(const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel,
                                      const char* data, size_t size)>;

// What the module uses of the process around it. The component wires the runtime and the PMIx
// server; tests give their own loop, state machine and hooks.
struct Services {
    runtime::EventLoop* loop = nullptr;
    state::StateMachine* state = nullptr;
    std::string node_name;        // this node, as messages name it
    runtime::Rank daemon_rank = 0;
    // Where Open MPI's shared-memory transport keeps its segments, when its default (/dev/shm,
    // files named after the hostname and the local rank) would be shared with another node: on
    // the local-node test-bed every node has this machine's hostname. Empty: Open MPI's default.
    std::string ompi_shm_dir;
    // This daemon's session directory: a job's preloaded program goes into a directory of the job's
    // there (odls/base/odls_base_preload.h).
    std::string session_dir;
    EnvProvider setup_fork;
    OutputSink deliver_output;
    // Flow control (optional): while output_backlogged() says the sink holds too much that it has
    // not passed on, the module stops reading its children's pipes (so they block in write, as
    // they would on a slow terminal) and resumes when the callback given to when_output_drains runs
    // (on the loop thread).
    std::function<bool(const runtime::Job&)> output_backlogged;
    std::function<void(const runtime::Job&, std::function<void()>)> when_output_drains;
    // host process_ended (optional): a child was reaped; `abnormally` when killed or exiting
    // non-zero. Collectives waiting for it are ended.
    std::function<void(const runtime::Job&, runtime::Rank, bool abnormally)> process_ended;
    // host job_killing (optional): this node's processes of the job are about to be signalled.
    std::function<void(const runtime::Job&)> job_killing;
    // The PMI server (optional: a site may drop the pmi framework's component). Processes of a
    // job that asks for PMI get an endpoint of it (pmi/pmi.h) and it is told of their end.
    pmi::Module* pmi = nullptr;
    // Whether the process's launch oversubscribes its node (optional; runtime::JobTable::
    // oversubscribes): an Open MPI process is then told to yield when idle, as mpirun tells it.
    std::function<bool(const runtime::Job&, const runtime::Proc&)> oversubscribed;
};

struct Options {
    std::chrono::milliseconds kill_grace{1000};  // odls_base_sigkill_timeout
    bool ompi_compat = true;                     // odls_default_ompi_compat
};

class DefaultModule final : public Module {
  public:
    // `services` is called once, by init(), so the component may hand over a runtime that is
    // not complete yet when the module is created.
    DefaultModule(std::function<Services()> services, Options options);
    ~DefaultModule() override;

    // Registers the SIGCHLD event. launch() calls it if nobody has.
    Status init() override;
    Status launch(const runtime::JobPtr& job, const std::vector<runtime::Rank>& ranks) override;
    void signal(const runtime::JobPtr& job, int signal) override;
    void kill(const runtime::JobPtr& job) override;
    void write_stdin(const runtime::JobPtr& job, runtime::Rank rank, std::string_view data, bool eof,
                     StdinDone done) override;
    void release_job(const runtime::JobPtr& job) override;
    size_t live_processes() const override { return live_.load(); }
    // SIGKILLs what is still alive and releases every event and pipe. From the progress thread,
    // or after it has stopped.
    void finalize() noexcept override;

  private:
    struct Child;
    struct Stream;
    struct Stdin;
    struct KillTimer;

    void launch_one(const runtime::JobPtr& job, runtime::Rank rank, int local_size);
    // Writes the preloaded files of the apps of `ranks` (prun --preload-*); fails those of an app
    // whose files cannot be written and returns the ranks left to launch.
    std::vector<runtime::Rank> place_preloads(const runtime::JobPtr& job, const std::vector<runtime::Rank>& ranks);
    void fail_before_fork(const runtime::JobPtr& job, runtime::Proc& proc, const std::string& why);
    void watch(Child& child);

    static void on_status(int fd, short what, void* arg);
    static void on_output(int fd, short what, void* arg);
    static void on_sigchld(int fd, short what, void* arg);
    void on_kill_timer(std::list<std::unique_ptr<KillTimer>>::iterator self);
    // Kill timers none of whose processes is left to signal: cancelled, not left to fire.
    void drop_spent_kill_timers();
    static void on_stdin_writable(int fd, short what, void* arg);

    void resolve_exec(Child& child);
    void read_output(Stream& stream);
    void pause_reading(const runtime::JobPtr& job);
    void resume_reading(const std::string& nspace);
    bool reading_paused(const runtime::Job& job) const { return paused_jobs_.count(job.nspace) > 0; }
    void close_stream(Stream& stream);
    Child* find_child(const runtime::JobPtr& job, runtime::Rank rank);
    // Writes what the child's stdin pipe takes now, arms its write event for the rest, and runs
    // the acceptances that may run.
    void feed_stdin(Child& child);
    // Closes the child's stdin (the reader sees EOF, what is queued is dropped) and runs every
    // acceptance still held.
    void close_stdin(Child& child);
    void reap();
    // Reports what the child has reached, in order, and forgets it once everything is reported.
    void report(Child& child);
    // Not reaped yet, or reaped while what it started still holds its output open.
    static bool is_signalable(const Child& child);
    void signal_child(const Child& child, int signal) const;
    std::string node_of(const runtime::Proc& proc) const;

    std::function<Services()> make_services_;
    Services services_;
    std::set<std::string> paused_jobs_;  // jobs whose output we do not read while it drains
    Options options_;
    bool initialized_ = false;
    event* sigchld_ = nullptr;
    // By launch order, not pid: a reaped child whose output is still open (a grandchild holds the
    // pipe) keeps its entry while the kernel may already give its pid to a new child.
    std::map<uint64_t, std::unique_ptr<Child>> children_;
    uint64_t next_child_id_ = 0;
    std::list<std::unique_ptr<KillTimer>> kill_timers_;
    std::atomic<size_t> live_{0};  // children not yet reaped; read from any thread
    std::unique_ptr<base::PreloadPlacer> preloads_;  // made by init()
};

}  // namespace prte::odls::default_component
