#include "mca/plm/base/plm_timeout.h"

#include <cerrno>
#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_base_state.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::plm::base {
namespace {

using runtime::JobPtr;
using runtime::JobState;
using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }
const output::VerboseStream& verbose() { return framework().verbose(); }

// The wait for the daemons' traces: their own debuggers' limit, and time for the answers to travel.
constexpr std::chrono::seconds kAnswerMargin{2};

bool still_running(const JobPtr& job) { return job && runtime::is_alive(job->state) && !job->aborting; }

// mpirun 4.1's status for a job past its time limit (ETIMEDOUT), which scripts written for it test.
void end_timed_out(const JobPtr& job, const std::string& why, JobState end_state)
{
    job->timed_out = true;
    terminate_job(job, why, end_state, ETIMEDOUT);
}

std::string_view short_state(runtime::ProcState state)
{
    std::string_view name = runtime::to_string(state);
    constexpr std::string_view prefix = "PRTE_PROC_STATE_";
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
    return name;
}

std::string traces_text(const TimeoutReport& report)
{
    std::string out;
    for (const auto& node : report.nodes) {
        if (!node.note.empty()) out += fmt::format("prte: {}\n", node.note);
        for (const auto& t : node.traces) {
            out += fmt::format("prte: stack trace of job {} rank {} (pid {}) on node {}:\n{}\n", report.nspace, t.rank,
                               t.pid, node.node, t.text);
        }
    }
    for (Rank daemon : report.waiting) {
        const runtime::Node* node = daemons().node_of(daemon);
        out += fmt::format("prte: no stack traces from node {} (daemon {}): it did not answer within {} s\n",
                           node ? node->name : "?", daemon,
                           (rt().settings().stack_trace_timeout + kAnswerMargin).count());
    }
    return out;
}

// Everything gathered (or the wait is over): the report to the spawner and the log, then the end.
void finish_report(const std::string& nspace)
{
    auto& reports = state().timeout_reports;
    auto it = reports.find(nspace);
    if (it == reports.end()) return;
    std::unique_ptr<TimeoutReport> report = std::move(it->second);
    reports.erase(it);
    JobPtr job = report->job.lock();
    if (!still_running(job)) {
        verbose()(1, "job {} ended while its timeout report was gathered: the report is dropped", nspace);
        return;
    }
    std::string text = report->header + traces_text(*report);
    std::fputs(text.c_str(), stderr);
    rt().host().deliver_output(*job, PMIX_RANK_UNDEF, PMIX_FWD_STDERR_CHANNEL, text.data(), text.size());
    end_timed_out(job, fmt::format("job {} timed out after {} seconds", nspace, job->timeout_seconds), JobState::aborted);
}

void node_answered(const std::string& nspace, Rank daemon, runtime::NodeStackTraces traces)
{
    auto it = state().timeout_reports.find(nspace);
    if (it == state().timeout_reports.end() || !it->second->waiting.erase(daemon)) return;  // late, or unasked
    it->second->nodes.push_back(std::move(traces));
    if (it->second->waiting.empty()) finish_report(nspace);
}

// The daemons (the master included) with live processes of the job take their stacks.
void gather_stack_traces(const JobPtr& job, TimeoutReport& report)
{
    std::set<Rank> hosts;
    for (const auto& p : job->procs) {
        if (p->node && p->pid > 0 && !p->waitpid_fired) hosts.insert(p->node->daemon);
    }
    const Rank self = rt().identity().rank;
    for (Rank daemon : hosts) {
        if (daemon == self) continue;
        msg::DaemonCommand c{msg::Command::stack_traces, job->nspace, 0};
        if (Status st = messenger().send(daemon, rml::tag::daemon, msg::encode(c)); !st) {
            verbose()(1, "job {}: cannot ask daemon {} for stack traces: {}", job->nspace, daemon, st.message());
            continue;
        }
        report.waiting.insert(daemon);
    }
    if (hosts.count(self)) {
        report.waiting.insert(self);
        const auto& settings = rt().settings();
        report.local = std::make_unique<runtime::StackTracer>(rt().loop(), settings.stack_trace_debugger,
                                                              settings.stack_trace_timeout);
        report.local->start(rt().identity().node_name, runtime::live_processes_on(*job, self),
                            [nspace = job->nspace, self](runtime::NodeStackTraces traces) {
                                node_answered(nspace, self, std::move(traces));
                            });
    }
    report.bound = runtime::LoopTimer(rt().loop(), [nspace = job->nspace] { finish_report(nspace); });
    report.bound.arm(rt().settings().stack_trace_timeout + kAnswerMargin);
}

void timeout_fired(const JobPtr& job)
{
    std::string why = fmt::format("job {} timed out after {} seconds", job->nspace, job->timeout_seconds);
    if (!job->timeout_report_state && !job->timeout_stack_traces) {
        end_timed_out(job, why, JobState::aborted);
        return;
    }
    if (state().timeout_reports.count(job->nspace)) return;  // being gathered
    auto report = std::make_unique<TimeoutReport>();
    report->job = job;
    report->nspace = job->nspace;
    // The state as the timer fired, before anything is killed.
    report->header = fmt::format("prte: {}\n", why);
    if (job->timeout_report_state) report->header += state_report(*job);
    TimeoutReport& r = *report;
    state().timeout_reports[job->nspace] = std::move(report);
    if (job->timeout_stack_traces) gather_stack_traces(job, r);
    if (r.waiting.empty()) finish_report(job->nspace);
}

}  // namespace

std::string state_report(const runtime::Job& job)
{
    std::string out;
    for (const auto& p : job.procs) {
        out += fmt::format("prte: job {} rank {}: node {}, pid {}, state {}\n", job.nspace, p->rank,
                           p->node ? p->node->name : "(none)", p->pid, short_state(p->state));
    }
    return out;
}

void arm_spawn_timeout(const JobPtr& job)
{
    if (job->spawn_timeout_seconds <= 0 || job->spawn_timer.armed()) return;
    // Weak: the timer is the job's, and must not keep it alive.
    job->spawn_timer = runtime::LoopTimer(rt().loop(), [weak = std::weak_ptr<runtime::Job>(job)] {
        JobPtr j = weak.lock();
        if (!still_running(j)) return;
        end_timed_out(j,
                      fmt::format("job {}: its processes had not all started within {} seconds (--spawn-timeout); it "
                                  "was ended in state {}",
                                  j->nspace, j->spawn_timeout_seconds, runtime::to_string(j->state)),
                      JobState::failed_to_start);
    });
    job->spawn_timer.arm(std::chrono::seconds(job->spawn_timeout_seconds));
}

void cancel_spawn_timeout(runtime::Job& job) { job.spawn_timer.cancel(); }

void arm_timeout(const JobPtr& job)
{
    if (job->timeout_seconds <= 0 || job->timeout_timer.armed()) return;
    job->timeout_timer = runtime::LoopTimer(rt().loop(), [weak = std::weak_ptr<runtime::Job>(job)] {
        if (JobPtr j = weak.lock(); still_running(j)) timeout_fired(j);
    });
    job->timeout_timer.arm(std::chrono::seconds(job->timeout_seconds));
}

void on_stack_traces(Rank from, rml::Payload&& payload)
{
    msg::StackTraces answer;
    if (Status st = msg::decode(payload, answer); !st) {
        output::warning("dropped stack traces from daemon {}: {}", from, st.message());
        return;
    }
    node_answered(answer.nspace, answer.daemon, std::move(answer.node));
}

}  // namespace prte::plm::base
