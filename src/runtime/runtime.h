// The process-wide runtime: who this process is, its progress thread, the node pool, the job
// table, the state machine and the host services components use. One per process (prte, prted,
// prterun); everything in it is owned by the progress thread — other threads post() to loop()
// first. It knows nothing of parameters or frameworks: the program's wiring (src/program/) reads
// the parameters, hands it their values, selects the frameworks and installs the host services.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/campaigns.h"
#include "runtime/elastic.h"
#include "runtime/event_loop.h"
#include "runtime/host_services.h"
#include "runtime/hw_topology.h"
#include "runtime/job_defaults.h"
#include "runtime/job_table.h"
#include "runtime/node.h"
#include "runtime/settings.h"
#include "runtime/state_machine.h"
#include "util/output.h"
#include "util/process_role.h"
#include "util/status.h"

namespace prte::runtime {

struct Identity {
    util::ProcessRole role = util::ProcessRole::master;
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

    // Takes this process's identity and settings, creates the event loop and the state machine
    // (whose transitions are told on `state_verbose`, which must outlive the Runtime) and the
    // session directory. Does not start the progress thread. Program wiring: program::init.
    Status init(util::ProcessRole role, const Settings& settings, const output::VerboseStream& state_verbose);
    // One ordered teardown: stops the progress thread if it runs, destroys the campaigns engine,
    // runs the steps given to at_finalize() in the reverse order of their registration (the
    // wiring's frameworks close there), removes the session directory.
    void finalize();
    // A step of finalize(), after the loop has stopped; later registrations run first.
    void at_finalize(std::function<void()> step) { finalize_steps_.push_back(std::move(step)); }

    const Identity& identity() const { return identity_; }
    Identity& identity() { return identity_; }
    EventLoop& loop() { return *loop_; }
    NodePool& pool() { return pool_; }
    // The nodes' topologies, one per distinct XML text (hw_topology.h), for every node the master
    // learns of (a daemon's call home, ras/simulator): as long-lived as the pool whose nodes share them.
    HwTopologyCache& topologies() { return topologies_; }
    JobTable& jobs() { return jobs_; }
    state::StateMachine& state() { return *state_machine_; }
    ElasticState& elastic() { return elastic_; }
    const Settings& settings() const { return settings_; }
    // Session directories of processes of this node no longer running (SIGKILLed masters and
    // daemons) that init removed; program::init reports them once the verbose streams are set.
    const std::vector<std::string>& removed_stale_sessions() const { return removed_stale_sessions_; }
    const output::VerboseStream& state_verbose() const { return *state_verbose_; }
    // What components may ask of the PMIx server host (host_services.h), installed by the wiring
    // before any component is selected. set_host refuses a table with a service missing.
    const HostServices& host() const { return host_; }
    Status set_host(HostServices host);
    // The elastic DVM's campaigns (campaigns.h): the master's program installs the engine; without
    // one, an inert stand-in. Destroyed by finalize() before the steps of at_finalize run.
    Campaigns& campaigns() { return campaigns_ ? *campaigns_ : inert_campaigns_; }
    void set_campaigns(std::unique_ptr<Campaigns> campaigns) { campaigns_ = std::move(campaigns); }

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
    // Without `hangup`, SIGHUP is left to the caller (a DVM writing a log file reopens it).
    void shutdown_on_signals(bool hangup = true);
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
    // What every job submitted to this DVM gets unless it asks otherwise (prte --timeout, -x,
    // --runtime-options, --display): set by prte before the loop runs, read by the master's spawn.
    JobDefaults& job_defaults() { return job_defaults_; }

  private:
    Identity identity_;
    Settings settings_;
    output::VerboseStream silent_{"state"};  // until init() names the state framework's stream
    const output::VerboseStream* state_verbose_ = &silent_;
    std::vector<std::string> removed_stale_sessions_;
    HostServices host_;
    InertCampaigns inert_campaigns_;
    std::unique_ptr<Campaigns> campaigns_;
    std::vector<std::function<void()>> finalize_steps_;
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
    // Last: the members before it keep their offsets for components built before it was added.
    HwTopologyCache topologies_;
    JobDefaults job_defaults_;  // after topologies_, for the same reason
};

}  // namespace prte::runtime
