#include "mca/plm/ssh/plm_ssh.h"

#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
constexpr size_t kTailLines = 8;

}  // namespace

SshModule::~SshModule() { finalize(); }

Status SshModule::init()
{
    if (sigchld_) return {};
    sigchld_ = evsignal_new(rt().loop().base(), SIGCHLD, &SshModule::on_sigchld, this);
    if (!sigchld_ || event_add(sigchld_, nullptr) != 0) return {Errc::internal, "plm/ssh: cannot watch SIGCHLD"};
    return {};
}

Status SshModule::launch_daemons(runtime::Job&, const std::vector<runtime::Node*>& nodes)
{
    if (Status st = init(); !st) return st;
    std::vector<runtime::Rank> ranks = base::assign_daemons(nodes);
    for (size_t i = 0; i < ranks.size(); ++i) {
        auto agent = std::make_unique<Agent>();
        agent->owner = this;
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
    std::vector<std::string> argv = options_.agent;
    argv.push_back(agent.node);
    std::vector<std::string> command = base::daemon_command(agent.rank);
    argv.insert(argv.end(), command.begin(), command.end());
    verbose()(5, "plm/ssh: daemon {} on {}: {}", agent.rank, agent.node, util::join(argv, " "));

    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) {
        fail(agent, fmt::format("cannot create a pipe: {}", std::strerror(errno)));
        return;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        fail(agent, fmt::format("cannot create a pipe: {}", std::strerror(errno)));
        return;
    }
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);

    // Signals stay blocked across fork: the child must not run the loop's signal handlers (which
    // would write into the master's own wake-up socket) before it has reset them.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, nullptr);
        setpgid(0, 0);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(out[1], STDERR_FILENO);
        execvp(cargv[0], cargv.data());
        dprintf(STDERR_FILENO, "cannot run the launch agent '%s': %s\n", cargv[0], std::strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(in[0]);
    ::close(out[1]);
    if (pid < 0) {
        ::close(in[1]);
        ::close(out[0]);
        fail(agent, fmt::format("cannot fork: {}", std::strerror(fork_errno)));
        return;
    }
    agent.pid = pid;
    // The secret, then end of input: the daemon reads one line. Small enough for the pipe buffer.
    std::string secret = base::dvm_secret() + "\n";
    if (write(in[1], secret.data(), secret.size()) != static_cast<ssize_t>(secret.size())) {
        verbose()(1, "plm/ssh: could not hand the secret to the agent of daemon {}", agent.rank);
    }
    ::close(in[1]);

    agent.output_fd = out[0];
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    agent.output_ev = event_new(rt().loop().base(), out[0], EV_READ | EV_PERSIST, &SshModule::on_output, &agent);
    event_add(agent.output_ev, nullptr);
    agent.timer = evtimer_new(rt().loop().base(), &SshModule::on_timeout, &agent);
    timeval tv{options_.callhome_timeout, 0};
    evtimer_add(agent.timer, &tv);
}

void SshModule::on_output(int, short, void* arg)
{
    auto* agent = static_cast<Agent*>(arg);
    auto& self = *agent->owner;
    self.read_output(*agent);
}

// The daemon's and the agent's messages: kept for a failure report and passed on to prte's stderr,
// so a daemon's own error is seen where the user looks.
void SshModule::read_output(Agent& agent)
{
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(agent.output_fd, buf, sizeof(buf));
        if (n > 0) {
            agent.partial.append(buf, static_cast<size_t>(n));
            size_t nl;
            while ((nl = agent.partial.find('\n')) != std::string::npos) {
                std::string line = agent.partial.substr(0, nl);
                agent.partial.erase(0, nl + 1);
                std::fprintf(stderr, "[%s] %s\n", agent.node.c_str(), line.c_str());
                agent.last_lines.push_back(std::move(line));
                if (agent.last_lines.size() > kTailLines) agent.last_lines.pop_front();
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        // End of output: the agent and the daemon have closed it.
        if (!agent.partial.empty()) {
            agent.last_lines.push_back(agent.partial);
            std::fprintf(stderr, "[%s] %s\n", agent.node.c_str(), agent.partial.c_str());
            agent.partial.clear();
        }
        if (agent.output_ev) {
            event_free(agent.output_ev);
            agent.output_ev = nullptr;
        }
        ::close(agent.output_fd);
        agent.output_fd = -1;
        return;
    }
}

std::string SshModule::tail(const Agent& agent) const
{
    if (agent.last_lines.empty()) return "it printed nothing";
    return "its last output: " + util::join({agent.last_lines.begin(), agent.last_lines.end()}, " | ");
}

void SshModule::on_timeout(int, short, void* arg)
{
    auto* agent = static_cast<Agent*>(arg);
    auto& self = *agent->owner;
    if (agent->reported) return;
    if (agent->output_fd >= 0) self.read_output(*agent);
    self.fail(*agent, fmt::format("did not call home within {} s (plm_ssh_callhome_timeout); {}",
                                  self.options_.callhome_timeout, self.tail(*agent)));
    if (agent->pid > 0 && !agent->exited) ::kill(-agent->pid, SIGTERM);
}

void SshModule::on_sigchld(int, short, void* arg) { static_cast<SshModule*>(arg)->reap(); }

void SshModule::reap()
{
    for (auto& [rank, agent] : agents_) {
        if (agent->pid <= 0 || agent->exited) continue;
        int status = 0;
        pid_t r = ::waitpid(agent->pid, &status, WNOHANG);
        if (r != agent->pid) continue;
        agent->exited = true;
        if (agent->output_fd >= 0) read_output(*agent);
        std::string how = WIFEXITED(status) ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                            : fmt::format("was killed by signal {}", WTERMSIG(status));
        verbose()(5, "plm/ssh: the agent of daemon {} on {} {}", rank, agent->node, how);
        if (!agent->reported) {
            fail(*agent, fmt::format("the launch agent '{}' {} before the daemon called home; {}",
                                     util::join(options_.agent, " "), how, tail(*agent)));
        }
    }
    // An agent whose daemon has gone is forgotten, so a DVM that grows and shrinks for months
    // keeps no record per daemon it ever started. (One whose output is not at its end yet waits
    // for the next SIGCHLD; its events must not be freed under them.)
    for (auto it = agents_.begin(); it != agents_.end();) {
        const Agent& a = *it->second;
        bool done = a.exited && a.reported && a.output_fd < 0 && !a.output_ev && !a.timer;
        it = done ? agents_.erase(it) : std::next(it);
    }
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
    if (agent.timer) {
        event_free(agent.timer);
        agent.timer = nullptr;
    }
}

Status SshModule::kill_daemons(const std::vector<runtime::Rank>& ranks)
{
    for (runtime::Rank r : ranks) {
        auto it = agents_.find(r);
        if (it != agents_.end() && it->second->pid > 0 && !it->second->exited) ::kill(-it->second->pid, SIGTERM);
    }
    return {};
}

// Agents still running when the master exits are stopped, so nothing it started outlives it.
void SshModule::finalize() noexcept
{
    waiting_.clear();
    for (auto& [rank, agent] : agents_) {
        if (agent->pid > 0 && !agent->exited) ::kill(-agent->pid, SIGTERM);
    }
    for (int tries = 0; tries < 50; ++tries) {
        bool any = false;
        for (auto& [rank, agent] : agents_) {
            if (agent->pid <= 0 || agent->exited) continue;
            if (::waitpid(agent->pid, nullptr, WNOHANG) == agent->pid) {
                agent->exited = true;
            } else {
                any = true;
            }
        }
        if (!any) break;
        usleep(20000);
    }
    for (auto& [rank, agent] : agents_) {
        if (agent->pid > 0 && !agent->exited) {
            ::kill(-agent->pid, SIGKILL);
            ::waitpid(agent->pid, nullptr, 0);
            agent->exited = true;
        }
        if (agent->output_ev) event_free(agent->output_ev);
        if (agent->timer) event_free(agent->timer);
        if (agent->output_fd >= 0) ::close(agent->output_fd);
        agent->output_ev = nullptr;
        agent->timer = nullptr;
        agent->output_fd = -1;
    }
    if (sigchld_) {
        event_free(sigchld_);
        sigchld_ = nullptr;
    }
}

}  // namespace prte::plm::ssh
