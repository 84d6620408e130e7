// errmgr/prted: a daemon's failure handling. The fate of a job is the master's to decide (its
// processes' failures are reported by state/prted), so a daemon handles only the loss of a
// connection: losing the master means the DVM is gone - kill every local process and exit, leaving
// nothing orphaned; losing its parent is a fault to recover from - the parent is dropped from the
// tree and this daemon connects to its new parent (the nearest live ancestor); losing a child
// drops it from the tree. In leaving mode (a shrink named this daemon) any lost connection means
// exit: the survivors closing theirs to it is how it learns the shrink has passed it by, and a
// disconnect must never be mistaken for a fault to recover from (spec:
// collective-shrink-completion.txt, "Step 3" and open question 1).
#include <fmt/format.h>

#include "mca/base/component.h"
#include "mca/errmgr/base/errmgr_base.h"
#include "mca/errmgr/errmgr.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace {

using prte::runtime::Rank;

class PrtedErrmgrModule final : public prte::errmgr::Module {
  public:
    prte::Status init() override { return {}; }

    void proc_failed(const prte::runtime::JobPtr&, prte::runtime::Proc&, prte::runtime::ProcState) override {}

    void daemon_lost(Rank daemon, prte::runtime::ProcState reason) override
    {
        auto& rt = prte::runtime::Runtime::instance();
        auto& messenger = prte::rml::Messenger::instance();
        if (rt.shutting_down()) return;
        const auto& verbose = prte::errmgr::base::framework().verbose();
        if (rt.elastic().leaving()) {
            verbose(1, "daemon {} closed its connection: this daemon is leaving the DVM", daemon);
            rt.request_shutdown(0, "left the DVM (shrink)");
            return;
        }
        if (daemon == 0) {
            prte::output::error("lost the connection to the DVM master: killing this node's processes and exiting");
            rt.request_shutdown(1, "lost the master");
            return;
        }
        bool was_parent = messenger.tree().parent() == daemon;
        verbose(1, "daemon {} lost ({}){}", daemon, prte::runtime::to_string(reason),
                was_parent ? ": it was this daemon's parent, reconnecting to the new one" : "");
        messenger.mark_departed({daemon});
        if (messenger.tree().parent() == prte::runtime::kInvalidRank) {
            prte::output::error("no route left to the DVM master: killing this node's processes and exiting");
            rt.request_shutdown(1, "no route to the master");
            return;
        }
        messenger.connect_lifeline();
    }
};

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::daemon) {
        result.reason = "only daemons";
        return;
    }
    result.priority = 50;
    result.module = std::make_unique<PrtedErrmgrModule>();
}

}  // namespace

PRTE_MCA_COMPONENT(.framework = "errmgr",
                   .name = "prted",
                   .interface_version = prte::errmgr::kInterfaceVersion,
                   .version = "1.0.0",
                   .description = "a daemon's failure handling: exit when the master is lost, reroute around a lost daemon",
                   .query = query)
