// state/prted: a daemon's process state machine. A daemon decides nothing about a job's fate: every
// state its processes reach (forked, registered with PMIx, output closed, reaped, failed) is
// reported to the master, whose state/dvm counts them exactly as it counts its own node's. The
// daemon only remembers enough to know when it may exit (every local process reaped).
//
// Reports ride the routing tree, and a daemon on their way that dies takes those it held with it:
// a process's final report lost that way left its job running for ever, holding its slots
// (bench/chaos, issue 27). So each daemon remembers what it reported of the processes of jobs it
// still has, and sends it all again whenever its route to the master changes (a tree repair after a
// loss, a grow that moves a branch). The master counts each state of a process once
// (state/dvm/state_dvm_procs.cc), so a report that did arrive does no harm the second time.
#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "mca/base/component.h"
#include "mca/plm/base/plm_messages.h"
#include "mca/state/base/state_base.h"
#include "runtime/state_machine.h"
#include "mca/state/state.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace {

using prte::runtime::JobPtr;
using prte::runtime::ProcState;
using prte::runtime::Rank;

prte::rml::Messenger& messenger() { return prte::rml::Messenger::instance(); }

// What this daemon reported, by job and rank, in order; and the route its reports took then
// (its ancestors up to the master). Progress thread.
struct Reported {
    std::map<std::string, std::map<Rank, std::vector<ProcState>>> by_job;
    std::vector<Rank> route;
};

std::vector<Rank> route_to_master()
{
    std::vector<Rank> route;
    const prte::rml::RadixTree& tree = messenger().tree();
    for (Rank r = tree.parent(); r != prte::runtime::kInvalidRank && route.size() <= tree.size(); r = tree.parent_of(r)) {
        route.push_back(r);
        if (r == 0) break;
    }
    return route;
}

void send_update(const JobPtr& job, Rank rank, ProcState state)
{
    prte::runtime::Proc* proc = job->proc(rank);
    prte::plm::msg::ProcUpdate u;
    u.nspace = job->nspace;
    u.rank = rank;
    u.state = state;
    u.pid = proc->pid;
    u.exit_code = proc->exit_code;
    u.term_signal = proc->term_signal;
    if (prte::runtime::is_error(state)) u.message = job->abort_message;
    if (prte::Status st = messenger().send(0, prte::rml::tag::plm, prte::plm::msg::encode(u)); !st) {
        prte::state::base::framework().verbose()(1, "cannot report rank {} of {} to the master: {}", rank, job->nspace,
                                                 st.message());
    }
}

// Jobs this daemon no longer has (released by the master) need no resend.
void forget_released_jobs(Reported& r)
{
    auto& rt = prte::runtime::Runtime::instance();
    std::erase_if(r.by_job, [&](const auto& entry) { return !rt.jobs().find(entry.first); });
}

// After every change of the tree: if the way to the master changed, every report of a live job
// goes again, along the new way.
void resend_if_rerouted(Reported& r)
{
    std::vector<Rank> route = route_to_master();
    if (route == r.route) return;
    bool had_route = !r.route.empty();
    r.route = route;
    if (!had_route || route.empty()) return;
    forget_released_jobs(r);
    auto& rt = prte::runtime::Runtime::instance();
    size_t sent = 0;
    for (const auto& [nspace, ranks] : r.by_job) {
        JobPtr job = rt.jobs().find(nspace);
        if (!job) continue;
        for (const auto& [rank, states] : ranks) {
            if (!job->proc(rank)) continue;
            for (ProcState state : states) send_update(job, rank, state), ++sent;
        }
    }
    if (sent > 0) {
        prte::state::base::framework().verbose()(2, "route to the master is now {}: {} process report(s) sent again",
                                                 fmt::join(route, " -> "), sent);
    }
}

void report(Reported& r, const JobPtr& job, Rank rank, ProcState state)
{
    auto& rt = prte::runtime::Runtime::instance();
    prte::runtime::Proc* proc = job->proc(rank);
    if (!proc) return;
    if (state == ProcState::waitpid_fired) proc->waitpid_fired = true;
    if (state == ProcState::iof_complete) proc->iof_complete = true;
    if (prte::runtime::is_error(state)) proc->state = state;
    if (r.route.empty()) r.route = route_to_master();
    if (!r.by_job.count(job->nspace)) forget_released_jobs(r);
    std::vector<ProcState>& states = r.by_job[job->nspace][rank];
    // A process restarted (prun --max-restarts) starts a new life: its last one's end, which the
    // master has, must not be sent again.
    if (state == ProcState::running) states.clear();
    states.push_back(state);
    send_update(job, rank, state);
    // While the daemon is going away, a job whose local processes are all reaped is done here.
    if (rt.shutting_down() && !job->has_live_procs_on(rt.identity().rank)) {
        rt.jobs().remove(job->nspace);
        rt.finish_shutdown_when_idle();
    }
}

class PrtedStateModule final : public prte::state::Module {
  public:
    prte::Status install(prte::state::StateMachine& m) override
    {
        for (ProcState s : {ProcState::running, ProcState::registered, ProcState::iof_complete,
                            ProcState::waitpid_fired, ProcState::error}) {
            prte::Status st = m.add_proc_state(s, "report_to_master", [r = reported_](const JobPtr& job, Rank rank,
                                                                                       ProcState state) {
                report(*r, job, rank, state);
            });
            if (!st) return st;
        }
        // Shared: the messenger, and with it this listener, outlives the module.
        messenger().add_tree_listener([r = reported_] { resend_if_rerouted(*r); });
        return {};
    }

  private:
    std::shared_ptr<Reported> reported_ = std::make_shared<Reported>();
};

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::daemon) {
        result.reason = "only daemons report their processes to a master";
        return;
    }
    result.priority = 50;
    result.module = std::make_unique<PrtedStateModule>();
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "state",
                   .name = "prted",
                   .interface_version = prte::state::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "a daemon's process states, each reported to the master",
                   .query = query)
