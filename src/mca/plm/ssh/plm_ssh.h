// plm/ssh: starts a daemon on each new node through a remote-shell agent (`plm_ssh_agent`,
// default "ssh"), used exactly as ssh is: `<agent words> <node> <command words...>`, the command
// words quoted for the remote shell. The DVM secret goes to the agent's standard input (ssh
// forwards it), never on a command line.
//
// At most `plm_ssh_num_concurrent` daemons are in flight (started, not yet called home); the rest
// wait their turn. A daemon whose agent exits before it calls home, or that does not call home
// within `plm_ssh_callhome_timeout` seconds, is reported with its node name and the last lines the
// agent printed (ssh's own errors, or the daemon's).
//
// Agents are children of the master run as runtime::ChildProcess: each leads its own process group
// (a ^C at prte's terminal is prte's to handle, not theirs), and each is reaped by its own pidfd,
// never by waitpid(-1).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mca/plm/plm.h"
#include "runtime/child_process.h"
#include "runtime/loop_timer.h"

namespace prte::plm::ssh {

struct Options {
    std::vector<std::string> agent = {"ssh"};
    int num_concurrent = 128;
    int callhome_timeout = 60;
};

class SshModule final : public Module {
  public:
    explicit SshModule(Options options) : options_(std::move(options)) {}
    ~SshModule() override;

    Status init() override;
    Status launch_daemons(runtime::Job& daemon_job, const std::vector<runtime::Node*>& nodes) override;
    Status kill_daemons(const std::vector<runtime::Rank>& ranks) override;
    void daemon_reported(runtime::Rank rank) override;
    void finalize() noexcept override;

  private:
    struct Agent {
        runtime::Rank rank = 0;
        std::string node;
        runtime::ChildProcess process;
        runtime::LoopTimer timer;  // the call-home deadline, while in flight
        bool reported = false;
    };

    void pump();
    void start(Agent& agent);
    void fail(Agent& agent, const std::string& why);
    void leave_flight(Agent& agent);
    void agent_exited(runtime::Rank rank, int status);
    std::string tail(const Agent& agent) const;

    void callhome_overdue(Agent& agent);

    Options options_;
    std::map<runtime::Rank, std::unique_ptr<Agent>> agents_;
    std::deque<runtime::Rank> waiting_;
    int in_flight_ = 0;
};

}  // namespace prte::plm::ssh
