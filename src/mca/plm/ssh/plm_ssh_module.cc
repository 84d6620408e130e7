#include "mca/plm/ssh/plm_ssh.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "runtime/runtime.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::plm::ssh {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
const output::VerboseStream& verbose() { return base::framework().verbose(); }

}  // namespace

SshModule::~SshModule() { finalize(); }

Status SshModule::init() { return {}; }

Status SshModule::launch_daemons(runtime::Job&, const std::vector<runtime::Node*>& nodes)
{
    std::vector<runtime::Rank> ranks = base::assign_daemons(nodes);
    for (size_t i = 0; i < ranks.size(); ++i) {
        auto agent = std::make_unique<Agent>();
        agent->rank = ranks[i];
        agent->node = nodes[i]->name;
        agents_[ranks[i]] = std::move(agent);
        waiting_.push_back(ranks[i]);
    }
    verbose()(2, "plm/ssh: launching {} daemon(s) with '{}', at most {} at a time", ranks.size(),
              util::join(options_.agent, " "), options_.num_concurrent);
    pump();
    return {};
}

void SshModule::pump()
{
    while (!waiting_.empty() && in_flight_ < options_.num_concurrent) {
        runtime::Rank r = waiting_.front();
        waiting_.pop_front();
        auto it = agents_.find(r);
        if (it == agents_.end()) continue;
        ++in_flight_;
        start(*it->second);
    }
}

void SshModule::start(Agent& agent)
{
    runtime::ChildProcess::Spec spec;
    spec.argv = options_.agent;
    spec.argv.push_back(agent.node);
    std::vector<std::string> command = base::daemon_command(agent.rank);
    spec.argv.insert(spec.argv.end(), command.begin(), command.end());
    // The secret, then end of input: the daemon reads one line.
    spec.stdin_text = base::dvm_secret() + "\n";
    verbose()(5, "plm/ssh: daemon {} on {}: {}", agent.rank, agent.node, util::join(spec.argv, " "));
    runtime::Rank rank = agent.rank;
    std::string node = agent.node;
    // The daemon's and the agent's messages go on to prte's stderr (its log), so a daemon's own
    // error is seen where the user looks; the last ones are kept for a failure report.
    Status st = agent.process.start(
        rt().loop().base(), spec, [rank, node](const std::string& line) { base::relay_daemon_line(rank, node, line); },
        [this, rank](int status) { agent_exited(rank, status); });
    if (!st) {
        fail(agent, fmt::format("cannot start the launch agent: {}", st.message()));
        return;
    }
    // Owned by the agent: forgetting the agent cancels it.
    agent.timer = runtime::LoopTimer(rt().loop(), [this, &agent] { callhome_overdue(agent); });
    agent.timer.arm(std::chrono::seconds(options_.callhome_timeout));
}

std::string SshModule::tail(const Agent& agent) const
{
    std::string lines = agent.process.tail();
    return lines == "it printed nothing" ? lines : "its last output: " + lines;
}

void SshModule::callhome_overdue(Agent& agent)
{
    if (agent.reported) return;
    fail(agent, fmt::format("did not call home within {} s (plm_ssh_callhome_timeout); {}", options_.callhome_timeout,
                            tail(agent)));
    agent.process.signal(SIGTERM);
}

// An agent whose daemon has gone is forgotten, so a DVM that grows and shrinks for months keeps no
// record per daemon it ever started.
void SshModule::agent_exited(runtime::Rank rank, int status)
{
    auto it = agents_.find(rank);
    if (it == agents_.end()) return;
    Agent& agent = *it->second;
    std::string how = runtime::ChildProcess::describe(status);
    verbose()(5, "plm/ssh: the agent of daemon {} on {} {}", rank, agent.node, how);
    if (!agent.reported) {
        fail(agent, fmt::format("the launch agent '{}' {} before the daemon called home; {}",
                                util::join(options_.agent, " "), how, tail(agent)));
    }
    // Erased from a posted task: this runs inside the agent's own exit callback.
    rt().loop().post([this, rank] { agents_.erase(rank); });
}

void SshModule::fail(Agent& agent, const std::string& why)
{
    if (agent.reported) return;
    leave_flight(agent);
    base::daemon_failed(agent.rank, fmt::format("daemon {} on node {} failed to start: {}", agent.rank, agent.node, why));
    pump();
}

void SshModule::daemon_reported(runtime::Rank rank)
{
    auto it = agents_.find(rank);
    if (it == agents_.end() || it->second->reported) return;
    leave_flight(*it->second);
    pump();
}

// A daemon stops counting as in flight once, whether it called home or failed.
void SshModule::leave_flight(Agent& agent)
{
    agent.reported = true;
    --in_flight_;
    agent.timer.cancel();
}

Status SshModule::kill_daemons(const std::vector<runtime::Rank>& ranks)
{
    for (runtime::Rank r : ranks) {
        auto it = agents_.find(r);
        if (it != agents_.end()) it->second->process.signal(SIGTERM);
    }
    return {};
}

// Agents still running when the master exits are stopped, so nothing it started outlives it: all
// are sent SIGTERM, get a second between them to end, and those left are killed. An agent is done
// when its whole process group is: a shell agent dies at once on SIGTERM while the daemon it ran
// (which got the signal too) is still ending its processes.
void SshModule::finalize() noexcept
{
    waiting_.clear();
    for (auto& [rank, agent] : agents_) agent->process.signal(SIGTERM);
    for (int tries = 0; tries < 50; ++tries) {
        bool any = false;
        for (auto& [rank, agent] : agents_) {
            agent->process.wait_for_exit(0);
            any = agent->process.group_alive() || any;
        }
        if (!any) break;
        usleep(20000);
    }
    for (auto& [rank, agent] : agents_) {
        agent->process.signal_group(SIGKILL);
        agent->process.wait_for_exit(5);
    }
    agents_.clear();
}

}  // namespace prte::plm::ssh
