// The process-wide runtime: who this process is, its progress thread, the node pool, the job
// table and the state machine. One per process (prte, prted, prterun); everything in it is owned
// by the progress thread — other threads post() to loop() first.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mca/base/component.h"
#include "mca/state/base/state_machine.h"
#include "runtime/elastic.h"
#include "runtime/event_loop.h"
#include "runtime/job_table.h"
#include "runtime/mca_setup.h"
#include "runtime/node.h"
#include "util/status.h"

namespace prte::runtime {

struct Identity {
    mca::ProcessRole role = mca::ProcessRole::master;
    std::string node_name;  // this process's node; the test-bed overrides it with prte_node_name
    Rank rank = 0;          // daemon rank within the DVM; the master is 0
    std::string dvm_nspace;  // "prte-<host>-<pid>" of the master
    std::string session_dir;  // private scratch directory, removed at finalize
};

// Removes a session directory, and then the per-user directory that holds it ("<TMPDIR>/prte.<uid>")
// if nothing else is left in it: daemons started over real ssh get no TMPDIR and use /tmp, where
// the empty per-user directory used to stay behind. Any thread; errors are ignored.
void remove_session_dir(const std::string& session_dir);

class Runtime {
  public:
    static Runtime& instance();

    // Reads the parameter sources, scans the component path, opens and selects the frameworks
    // for `role`, creates the session directory. Does not start the progress thread.
    Status init(mca::ProcessRole role, char** envp, const MCASettings& command_line);
    // Stops the progress thread if it runs, closes frameworks, removes the session directory.
    void finalize();

    const Identity& identity() const { return identity_; }
    Identity& identity() { return identity_; }
    EventLoop& loop() { return *loop_; }
    NodePool& pool() { return pool_; }
    JobTable& jobs() { return jobs_; }
    state::StateMachine& state() { return *state_machine_; }
    ElasticState& elastic() { return elastic_; }
    const output::VerboseStream& state_verbose() const;

    // True once the DVM's daemons are all wired up (VM_READY of the daemon job); jobs that arrive
    // before are held and released then (spec 7.4.3.1 step 9).
    bool dvm_ready() const { return dvm_ready_; }
    // Marks the DVM ready and runs the program's ready handler (prte prints "DVM ready").
    void mark_dvm_ready();
    void set_ready_handler(std::function<void()> handler) { ready_handler_ = std::move(handler); }

    // Asks the program to shut down in order with `exit_status`; the first request's status and
    // reason are kept. Runs on the progress thread; the program's main loop ends after cleanup.
    void request_shutdown(int exit_status, const std::string& reason);
    // SIGTERM, SIGINT and SIGHUP become shutdown requests, handled as loop events (so the shutdown
    // runs on the progress thread); SIGPIPE is ignored (a peer gone is seen as a write error).
    void shutdown_on_signals();
    // What the program does on a shutdown request (prte: kill jobs, tell tools, stop the loop).
    void set_shutdown_handler(std::function<void()> handler) { shutdown_handler_ = std::move(handler); }
    const std::string& shutdown_reason() const { return shutdown_reason_; }
    bool shutting_down() const { return shutdown_status_.has_value(); }
    // finalize() has begun: the loop has stopped and the frameworks are closing.
    bool finalizing() const { return finalizing_; }
    // During a shutdown, stops the progress loop once no application job is left (called as jobs
    // are cleaned up, and once by the shutdown handler).
    void finish_shutdown_when_idle();
    // Starts the teardown now, jobs or not: for when jobs cannot end because a daemon stopped answering.
    void start_teardown();
    bool teardown_started() const { return teardown_started_; }
    int exit_status() const { return shutdown_status_.value_or(0); }
    // What runs between "no job left" and stopping the loop during a shutdown (the master orders
    // its daemons to exit and waits for them); it calls `done` when finished.
    void set_teardown(std::function<void(std::function<void()> done)> teardown) { teardown_ = std::move(teardown); }

  private:
    Identity identity_;
    std::unique_ptr<EventLoop> loop_;
    NodePool pool_;
    JobTable jobs_;
    ElasticState elastic_;
    std::unique_ptr<state::StateMachine> state_machine_;
    bool dvm_ready_ = false;
    std::function<void()> ready_handler_;
    std::optional<int> shutdown_status_;
    std::function<void()> shutdown_handler_;
    std::string shutdown_reason_;
    std::function<void(std::function<void()>)> teardown_;
    bool finalizing_ = false;
    bool teardown_started_ = false;
};

}  // namespace prte::runtime
