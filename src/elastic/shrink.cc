// Shrink campaigns (spec: shrink-campaign-fence-tracking.txt; collective-shrink-completion.txt):
// the leaving nodes' jobs end, the fence goes up before the order does, one shrink order is
// broadcast and the whole campaign completes once, when every survivor has it and has repaired
// its routing tree; then the RAS modules hear of it (shrink_complete) and the nodes are reset.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "elastic/campaign_engine.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::elastic {

using runtime::Rank;

namespace {

// A target the order never reached would run on unseen: its only path from the master ran through
// a daemon lost meanwhile (stopped, cut off), so the broadcast completed on the survivors without
// it, and nobody closes its call-home connection to the master - the end the target waits for
// (elastic mode lets it re-parent past its lost parent, onto the master). Once a target that had
// the order is surely gone (prte_elastic_leave_timeout, then prte_daemon_exit_timeout), the master
// closes its connections to any target still connected: a daemon that loses the master ends
// itself and its processes (errmgr/prted), as a daemon declared lost does. The watch is the
// engine's (unreached_watches_), so it goes with the engine at shutdown.
void end_unreached_targets(uint64_t campaign, const std::vector<Rank>& targets, const std::vector<std::string>& nodes,
                           double seconds)
{
    rml::Messenger& m = rml::Messenger::instance();
    std::set<Rank> connected = m.connected_peers();
    for (size_t i = 0; i < targets.size(); ++i) {
        Rank r = targets[i];
        if (runtime::Runtime::instance().shutting_down() || !connected.contains(r)) continue;
        output::warning("campaign {} (shrink): daemon {} on {} is still connected {:.1f} s after it left: the "
                        "order cannot have reached it; closing its connections, which ends it",
                        campaign, r, i < nodes.size() ? nodes[i] : "?", seconds);
        m.drop_connections(r);
    }
}

}  // namespace

// spec: collective-shrink-completion.txt, Step 2: run once per campaign, from the completion of
// the shrink order's broadcast on the master, when every surviving daemon has it and has
// repaired its tree. The master repaired its own (once, for the whole campaign) as it sent it.
void CampaignEngine::complete_shrink(uint64_t id, const Status& st)
{
    auto it = state_.shrinks().find(id);
    if (it == state_.shrinks().end()) return;
    runtime::ShrinkCampaign c = std::move(it->second);
    state_.shrinks().erase(it);
    if (!st) {
        plm::base::framework().verbose()(1, "campaign {} (shrink): the order's broadcast ended with: {}", c.id,
                                         st.message());
    }
    for (Rank r : c.targets) plm::base::record_departure(r);
    // Every module sees the nodes as they were granted (component, allocation) before the reset.
    ras::base::shrink_complete(c, rt_.pool());
    for (const auto& name : c.target_nodes) {
        if (runtime::Node* node = rt_.pool().find(name)) plm::base::reset_node(*node);
    }
    log_completion(c, "shrink", "left");
    watch_unreached_targets(c);
    set_phase(c.alloc_id, c.req_id, runtime::AllocationPhase::released);
    tell_requester(c, true, PMIX_SUCCESS, {});
    autoscaler_.shrink_completed(c);
    lower_fence(static_cast<uint32_t>(c.targets.size()));
}

void CampaignEngine::watch_unreached_targets(const runtime::ShrinkCampaign& c)
{
    auto after = rt_.settings().elastic_leave_timeout +
                 std::chrono::duration_cast<std::chrono::milliseconds>(rt_.settings().daemon_exit_timeout);
    runtime::LoopTimer& watch = unreached_watches_[c.id];
    watch = runtime::LoopTimer(rt_.loop(), [this, id = c.id, targets = c.targets, nodes = c.target_nodes, after] {
        end_unreached_targets(id, targets, nodes, static_cast<double>(after.count()) / 1000.0);
        unreached_watches_.erase(id);  // this timer: the campaign is done with
    });
    watch.arm(after);
}

void CampaignEngine::start_shrink(const runtime::AllocationRequest& request, const std::string& alloc_id,
                                  const std::vector<runtime::Node*>& nodes, Answer answer)
{
    runtime::ShrinkCampaign c;
    open_campaign(c, request, alloc_id);
    for (runtime::Node* node : nodes) {
        node->state = runtime::NodeState::departing;
        c.targets.push_back(node->daemon);
        c.target_nodes.push_back(node->name);
        // Its processes go with its daemon; their jobs end saying why, not with a signal.
        plm::base::end_jobs_on_node(
            node, fmt::format("node {} is leaving the DVM (released from allocation {})", node->name, alloc_id));
    }
    uint64_t id = c.id;
    std::vector<Rank> targets = c.targets;
    state_.shrinks()[id] = std::move(c);
    // Listed (and the fence raised) before the order goes out: from here, nothing is mapped onto
    // these nodes or launched there (spec: shrink-campaign-fence-tracking.txt, Step 1c).
    state_.raise_fence(static_cast<uint32_t>(targets.size()));
    set_phase(alloc_id, request.req_id, runtime::AllocationPhase::pending);
    log_campaign(5, fmt::format("campaign {} (shrink, {}): daemon(s) {} on {}, requester {}; launch fence {}", id,
                                alloc_id, fmt::join(targets, ","), util::join(state_.shrinks()[id].target_nodes, ", "),
                                who(request.requester), state_.fence()));
    if (answer) answer({}, alloc_id);
    campaign_started();
    plm::msg::DaemonCommand order{plm::msg::Command::shrink, {}, 0, targets};
    // prte_test_fail_shrink_order stands in for a broadcast that cannot go out (tests only).
    Status st = rt_.settings().test_fail_shrink_order
                    ? Status(Errc::unreachable, "the shrink order could not be sent (prte_test_fail_shrink_order)")
                    : plm::base::broadcast(rml::tag::daemon, plm::msg::encode(order),
                                           [this, id](const Status& s) { complete_shrink(id, s); });
    if (!st) {
        auto it = state_.shrinks().find(id);
        if (it == state_.shrinks().end()) return;
        runtime::ShrinkCampaign failed = std::move(it->second);
        state_.shrinks().erase(it);
        for (const auto& name : failed.target_nodes) {
            if (runtime::Node* node = rt_.pool().find(name)) node->state = runtime::NodeState::up;
        }
        log_campaign(1, fmt::format("campaign {} (shrink, {}) failed: {}", id, alloc_id, st.message()));
        set_phase(alloc_id, failed.req_id, runtime::AllocationPhase::failed, st.message());
        tell_requester(failed, false, PMIX_ERR_UNREACH, st.message());
        autoscaler_.shrink_failed(failed);
        lower_fence(static_cast<uint32_t>(targets.size()));
        return;
    }
    // The master acts on its own copy of the order as every daemon does: one repair for the whole
    // campaign, which also closes its connections to departing children once the order is written
    // to them. The broadcast then completes on the survivors' acknowledgements.
    rml::Messenger::instance().mark_departed(targets);
}

}  // namespace prte::elastic
