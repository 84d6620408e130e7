#include "prted/daemon_handlers.h"

#include <set>

#include <fmt/format.h>

#include "mca/base/param.h"
#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/plm_messages.h"
#include "pmix/server.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::prted {
namespace {

using runtime::JobPtr;
using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }
const output::VerboseStream& verbose() { return messenger().verbose(); }
Rank self() { return rt().identity().rank; }

runtime::Node* node_of(Rank daemon)
{
    for (runtime::Node* n : rt().pool().nodes()) {
        if (n->daemon == daemon) return n;
    }
    return nullptr;
}

std::vector<Rank> local_ranks(const runtime::Job& job)
{
    std::vector<Rank> out;
    for (const auto& p : job.procs) {
        if (p->node && p->node->daemon == self()) out.push_back(p->rank);
    }
    return out;
}

// Every daemon's contact and node: the tree can now be followed, and jobs placed on any node.
void on_wireup(Rank, rml::Payload&& payload)
{
    plm::msg::Wireup w;
    if (Status st = plm::msg::decode(payload, w); !st) {
        output::error("bad wireup from the master: {}", st.message());
        return;
    }
    for (const auto& d : w.daemons) {
        messenger().set_contact(d.rank, d.uri);
        runtime::Node n;
        n.name = d.node_name;
        n.slots = d.slots;
        n.slots_given = true;
        n.state = d.allocated ? runtime::NodeState::up : runtime::NodeState::not_included;
        runtime::Node& node = rt().pool().add(n);
        node.daemon = d.rank;
        node.daemon_launched = true;
        node.state = n.state;
    }
    // The rank span: listed ranks are wired, departed ones are gone for ever, and the rest belong
    // to a grow still starting its daemons (routed around until their own wireup lists them).
    std::set<Rank> absent;
    std::vector<bool> present(w.size, false);
    for (const auto& d : w.daemons) present[d.rank] = true;
    for (Rank r : w.departed) present[r] = true;
    for (Rank r = 0; r < w.size; ++r) {
        if (!present[r]) absent.insert(r);
    }
    messenger().set_size(w.size);
    messenger().mark_departed(w.departed);
    messenger().set_absent(absent);
    messenger().connect_lifeline();
    verbose()(5, "daemon {}: wired up, {} daemons, parent {}", self(), w.size, messenger().tree().parent());
}

void report_failed(const JobPtr& job, const std::vector<Rank>& ranks, const std::string& why)
{
    if (job->abort_message.empty()) job->abort_message = why;
    for (Rank r : ranks) rt().state().activate_proc_state(job, r, runtime::ProcState::failed_to_start);
}

void on_launch(Rank, rml::Payload&& payload)
{
    if (rt().shutting_down()) return;
    JobPtr job;
    if (Status st = plm::msg::decode_job(payload, rt().pool(), job); !st) {
        output::error("bad launch message from the master: {}", st.message());
        return;
    }
    // Sent once; a daemon a grow introduced to the job meanwhile (elastic/grow.cc) may hear of it twice.
    if (rt().jobs().find(job->nspace)) {
        verbose()(5, "daemon {}: job {} is known here already: launch message dropped", self(), job->nspace);
        return;
    }
    rt().jobs().insert(job);
    std::vector<Rank> mine = local_ranks(*job);
    verbose()(5, "daemon {}: job {}: {} of {} process(es) here", self(), job->nspace, mine.size(), job->num_procs());
    // Registered with PMIx even with no process here, as PRRTE does: a local process's fence or
    // connect over several namespaces (a parent and its spawned child sharing this node) is held by
    // the PMIx server until it knows every namespace named, so an unregistered one holds it for ever
    // (issue 32, item 3).
    pmix::register_job(job, [job, mine](const Status& st) {
        // The master may have ended the job while PMIx registered it (a timeout, pterm or ^C
        // during launch): its cleanup has already run here and found nothing to kill, so nothing
        // may start now (issue 14, item 11).
        if (rt().jobs().find(job->nspace) != job || rt().shutting_down()) {
            verbose()(5, "daemon {}: job {} ended while it was being registered: not launched", self(), job->nspace);
            return;
        }
        if (!st && mine.empty()) {
            output::warning("job {}: {}; a collective naming it from this node cannot complete", job->nspace,
                            st.message());
            return;
        }
        if (!st) {
            report_failed(job, mine, st.message());
            return;
        }
        if (mine.empty()) return;
        if (Status s = odls::base::module()->launch(job, mine); !s) report_failed(job, mine, s.message());
    });
}

// Bounded fallback for a target whose connections nobody closes (spec:
// collective-shrink-completion.txt, open question 1): it leaves anyway after this long.
void arm_leave_fallback(HandlerState& state)
{
    // Armed once: a second order naming this daemon keeps the first deadline, as it did when each
    // order armed a timer of its own and the first to fire ended the daemon.
    if (state.leave_fallback.armed()) return;
    state.leave_fallback = runtime::LoopTimer(rt().loop(), [] {
        verbose()(1, "daemon {}: leaving the DVM: no connection closed within prte_elastic_leave_timeout", self());
        rt().request_shutdown(0, "left the DVM (shrink)");
    });
    state.leave_fallback.arm(rt().settings().elastic_leave_timeout);
}

// The shrink order (forwarded to this daemon's children before it runs here, so they have it
// before any connection to a departing daemon closes). Every daemon repairs its tree from the
// target list, once; a target enters leaving mode, in which the next lost connection means exit
// (errmgr/prted), and survivors' closing of their connections to it is what makes it go.
void on_shrink(HandlerState& state, const std::vector<Rank>& targets)
{
    std::vector<Rank> others;
    bool mine = false;
    for (Rank r : targets) {
        if (r == self()) {
            mine = true;
        } else {
            others.push_back(r);
        }
    }
    if (mine) {
        // A leaving daemon keeps its parent in its tree: the parent closing the lifeline is what
        // tells it the order has passed (its own departing children it lets go of below).
        std::erase(others, messenger().tree().parent());
        verbose()(5, "daemon {}: named by a shrink: leaving the DVM", self());
        rt().elastic().set_leaving();
        odls::base::module()->kill(nullptr);
        arm_leave_fallback(state);
    }
    for (Rank r : others) {
        if (runtime::Node* node = messenger().tree().departed(r) ? nullptr : node_of(r)) node->state = runtime::NodeState::down;
    }
    messenger().mark_departed(others);
    if (!mine) messenger().connect_lifeline();
}

// A timed-out job's stacks here (prun --get-stack-traces), for the master, which waits for every
// daemon it asked: answered even when none of the job's processes is left here.
void on_stack_traces(HandlerState& state, const JobPtr& job, const std::string& nspace)
{
    const auto& settings = rt().settings();
    auto tracer = std::make_unique<runtime::StackTracer>(rt().loop(), settings.stack_trace_debugger,
                                                         settings.stack_trace_timeout);
    uint64_t id = state.next_stack_tracer++;
    runtime::StackTracer* t = tracer.get();
    state.stack_tracers.emplace(id, std::move(tracer));
    std::vector<runtime::StackTracer::Target> targets;
    if (job) targets = runtime::live_processes_on(*job, self());
    verbose()(5, "daemon {}: taking the stacks of {} process(es) of job {}", self(), targets.size(), nspace);
    t->start(rt().identity().node_name, targets, [&state, id, nspace](runtime::NodeStackTraces traces) {
        state.stack_tracers.erase(id);
        plm::msg::StackTraces answer{nspace, self(), std::move(traces)};
        if (Status st = messenger().send(0, rml::tag::stack_traces, plm::msg::encode(answer)); !st) {
            output::warning("cannot send job {}'s stack traces to the master: {}", nspace, st.message());
        }
    });
}

// The master restarts processes of the job that failed here (prun --max-restarts): each has
// ended (its end reported), and starts again as the same rank.
void on_restart(const JobPtr& job, const plm::msg::DaemonCommand& c)
{
    if (!job) {
        output::warning("cannot restart processes of job {}: this daemon does not know the job", c.nspace);
        return;
    }
    std::vector<Rank> ranks;
    for (Rank rank : c.targets) {
        runtime::Proc* proc = job->proc(rank);
        if (!proc || !proc->node || proc->node->daemon != self()) {
            output::warning("cannot restart rank {} of job {}: it does not run on this daemon", rank, c.nspace);
            continue;
        }
        runtime::forget_ended_life(*proc);
        ranks.push_back(rank);
    }
    if (ranks.empty()) return;
    verbose()(5, "daemon {}: restarting {} process(es) of job {}", self(), ranks.size(), c.nspace);
    if (Status st = odls::base::module()->launch(job, ranks); !st) {
        output::warning("cannot restart processes of job {}: {}", c.nspace, st.message());
    }
}

void on_command(HandlerState& state, rml::Payload&& payload)
{
    plm::msg::DaemonCommand c;
    if (Status st = plm::msg::decode(payload, c); !st) {
        output::warning("dropped a command from the master: {}", st.message());
        return;
    }
    JobPtr job = c.nspace.empty() ? nullptr : rt().jobs().find(c.nspace);
    switch (c.command) {
    case plm::msg::Command::exit: rt().request_shutdown(0, "ordered to exit by the master"); break;
    case plm::msg::Command::kill_job:
        if (job) odls::base::module()->kill(job);
        break;
    case plm::msg::Command::signal_job:
        if (job) odls::base::module()->signal(job, c.signal);
        break;
    case plm::msg::Command::shrink: on_shrink(state, c.targets); break;
    case plm::msg::Command::stack_traces: on_stack_traces(state, job, c.nspace); break;
    case plm::msg::Command::restart_procs: on_restart(job, c); break;
    case plm::msg::Command::cleanup_job:
        if (job) {
            // A job the master ended before it knew its processes' pids (killed during launch)
            // can still have processes here: they go first, never orphaned (issue 14, item 11).
            odls::base::module()->kill(job);
            odls::base::module()->release_job(job);  // its preloaded files, written here
            // Before PMIx forgets the namespace: a collective still waiting on it is answered first.
            if (grpcomm::Module* collectives = grpcomm::base::module()) collectives->job_released(job->nspace);
            pmix::deregister_job(job);
            rt().jobs().remove(job->nspace);
        }
        break;
    }
}

void on_daemon_died(Rank, rml::Payload&& payload)
{
    std::vector<Rank> ranks;
    if (Status st = plm::msg::decode_ranks(payload, ranks); !st) {
        output::warning("dropped a daemon-loss notice: {}", st.message());
        return;
    }
    std::vector<Rank> others;
    for (Rank r : ranks) {
        if (r != self()) others.push_back(r);
    }
    messenger().mark_departed(others);
    messenger().connect_lifeline();
    pmix::daemons_lost(others);
}

void forward_output(const runtime::Job& job, Rank rank, pmix_iof_channel_t channel, const char* data, size_t size)
{
    plm::msg::Output o{job.nspace, rank, channel, rml::Payload(data, data + size)};
    if (Status st = messenger().send(0, rml::tag::iof, plm::msg::encode(o)); !st) {
        verbose()(1, "daemon {}: cannot forward {} bytes of output of rank {} of job {} to the master: {}", self(), size,
                  rank, job.nspace, st.message());
    }
}

}  // namespace

void install_handlers(HandlerState& state)
{
    messenger().register_handler(rml::tag::wireup, on_wireup);
    messenger().register_handler(rml::tag::launch_apps, on_launch);
    messenger().register_handler(rml::tag::daemon,
                                 [&state](Rank, rml::Payload&& payload) { on_command(state, std::move(payload)); });
    messenger().register_handler(rml::tag::daemon_died, on_daemon_died);
    pmix::set_output_forwarder(forward_output);
}

void begin_shutdown()
{
    odls::base::module()->kill(nullptr);
    for (const auto& job : rt().jobs().all()) {
        if (!job->is_daemon_job && !job->has_live_procs_on(self())) rt().jobs().remove(job->nspace);
    }
    rt().finish_shutdown_when_idle();
}

}  // namespace prte::prted
