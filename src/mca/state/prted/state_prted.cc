// state/prted: a daemon's process state machine. A daemon decides nothing about a job's fate: every
// state its processes reach (forked, registered with PMIx, output closed, reaped, failed) is
// reported to the master, whose state/dvm counts them exactly as it counts its own node's. The
// daemon only remembers enough to know when it may exit (every local process reaped).
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

void report(const JobPtr& job, Rank rank, ProcState state)
{
    auto& rt = prte::runtime::Runtime::instance();
    prte::runtime::Proc* proc = job->proc(rank);
    if (!proc) return;
    if (state == ProcState::waitpid_fired) proc->waitpid_fired = true;
    if (state == ProcState::iof_complete) proc->iof_complete = true;
    if (prte::runtime::is_error(state)) proc->state = state;
    prte::plm::msg::ProcUpdate u;
    u.nspace = job->nspace;
    u.rank = rank;
    u.state = state;
    u.pid = proc->pid;
    u.exit_code = proc->exit_code;
    u.term_signal = proc->term_signal;
    if (prte::runtime::is_error(state)) u.message = job->abort_message;
    if (prte::Status st = prte::rml::Messenger::instance().send(0, prte::rml::tag::plm, prte::plm::msg::encode(u)); !st) {
        prte::state::base::framework().verbose()(1, "cannot report rank {} of {} to the master: {}", rank, job->nspace,
                                                 st.message());
    }
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
            if (prte::Status st = m.add_proc_state(s, "report_to_master", report); !st) return st;
        }
        return {};
    }
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
