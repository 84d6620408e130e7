// Grow campaigns (spec: elastic-dvm-spec.txt, "Grow"): the launcher starts daemons on the granted
// nodes, each calls home, the wireup with completion brings them into the tree, the jobs already
// running are introduced to them. A target lost on the way rolls the whole campaign back, and the
// DVM is left as it was before it. Also what elastic mode makes of a daemon lost outside any
// campaign: the DVM carries on without its node.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "elastic/admission.h"
#include "elastic/campaign_engine.h"
#include "mca/plm/base/daemon_table.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "util/strings.h"

namespace prte::elastic {
namespace {

namespace msg = plm::msg;
using runtime::JobPtr;
using runtime::JobState;
using runtime::Rank;

rml::Messenger& messenger() { return rml::Messenger::instance(); }
const output::VerboseStream& plm_verbose() { return plm::base::framework().verbose(); }

// A grown daemon learns the jobs already running: collectives over them may route through it.
void introduce_jobs(runtime::Runtime& rt, const std::vector<Rank>& targets)
{
    for (const auto& job : rt.jobs().all()) {
        if (job->is_daemon_job || !runtime::is_alive(job->state) || job->waits() ||
            static_cast<int>(job->state) < static_cast<int>(JobState::send_launch_msg)) {
            continue;
        }
        rml::Payload launch = msg::encode_job(*job);
        for (Rank r : targets) {
            if (Status st = messenger().send(r, rml::tag::launch_apps, launch); !st) {
                output::warning("cannot tell grown daemon {} of job {}: {}", r, job->nspace, st.message());
            }
        }
    }
}

}  // namespace

runtime::GrowCampaign* CampaignEngine::grow_of_rank(Rank rank)
{
    if (auto* c = state_.grow_of(rank)) return c;
    // A launch can fail before the launcher has told us the rank (inside launch_daemons).
    // Only while the node is still this rank's: a re-grown node's old, departed rank must not
    // take the new grow down with it.
    runtime::Node* node = plm::base::daemons().node_of(rank);
    if (!node || node->daemon != rank) return nullptr;
    for (auto& [id, c] : state_.grows()) {
        if (std::find(c.target_nodes.begin(), c.target_nodes.end(), node->name) != c.target_nodes.end()) return &c;
    }
    return nullptr;
}

void CampaignEngine::fail_grow(uint64_t id, const std::string& cause, pmix_status_t code)
{
    auto it = state_.grows().find(id);
    if (it == state_.grows().end()) return;
    runtime::GrowCampaign c = std::move(it->second);
    state_.grows().erase(it);
    log_campaign(1, fmt::format("campaign {} (grow, {}) failed after {:.1f} ms: {}; rolling back node(s) {}", c.id,
                                c.alloc_id, elapsed_ms(c.started), cause, util::join(c.target_nodes, ", ")));
    // spec: "Failure semantics": the campaign's started daemons are terminated and its nodes leave
    // the DVM, which is left exactly as it was before the campaign.
    std::vector<Rank> ranks;
    for (const auto& name : c.target_nodes) {
        runtime::Node* node = rt_.pool().find(name);
        if (node && node->daemon != runtime::kInvalidRank) ranks.push_back(node->daemon);
    }
    if (plm::Module* m = plm::base::module()) {
        if (Status st = m->kill_daemons(ranks); !st) {
            output::warning("campaign {} (grow): cannot end its daemon(s) {}: {}", c.id, fmt::join(ranks, ","),
                            st.message());
        }
    }
    for (Rank r : ranks) plm::base::record_departure(r);
    messenger().mark_departed(ranks);
    // Daemons that had the campaign's wireup route to them: tell them the ranks are gone.
    if (c.wiring) {
        if (Status st = plm::base::broadcast(rml::tag::daemon_died, msg::encode_ranks(ranks)); !st) {
            output::warning("campaign {} (grow): cannot tell the daemons that daemon(s) {} left: {}", c.id,
                            fmt::join(ranks, ","), st.message());
        }
    }
    ras::base::grow_failed(c.target_nodes, rt_.pool());
    for (const auto& name : c.target_nodes) {
        if (runtime::Node* node = rt_.pool().find(name)) plm::base::reset_node(*node);
    }
    // Jobs parked on this campaign never launch (spec: conformance item 1's exception).
    std::string why = fmt::format("the DVM could not grow (campaign {}, allocation {}, node(s) {}): {}", c.id, c.alloc_id,
                                  util::join(c.target_nodes, ", "), cause);
    for (auto* held : {&state_.held_at_map(), &state_.held_at_launch()}) {
        for (auto jt = held->begin(); jt != held->end();) {
            if (!jt->waiting_on.count(c.id)) {
                ++jt;
                continue;
            }
            JobPtr job = jt->job;
            jt = held->erase(jt);
            end_wait(*job);
            plm::base::terminate_job(
                job, fmt::format("job {} was waiting for the DVM to grow and is aborted: {}", job->nspace, why),
                JobState::failed_to_launch, 1);
        }
    }
    set_phase(c.alloc_id, c.req_id, runtime::AllocationPhase::failed, cause);
    tell_requester(c, false, code, why);
    autoscaler_.grow_failed(c.alloc_id, cause);
    lower_fence(static_cast<uint32_t>(c.target_nodes.size()));
}

void CampaignEngine::complete_grow(uint64_t id, const Status& st)
{
    auto it = state_.grows().find(id);
    if (it == state_.grows().end()) return;  // failed meanwhile (a target died during the wireup)
    if (!st) {
        fail_grow(id, st.message(), PMIX_ERR_UNREACH);
        return;
    }
    runtime::GrowCampaign c = std::move(it->second);
    state_.grows().erase(it);
    for (const auto& name : c.target_nodes) {
        runtime::Node* node = rt_.pool().find(name);
        if (node && node->state == runtime::NodeState::joining) node->state = runtime::NodeState::up;
    }
    introduce_jobs(rt_, c.targets);
    log_completion(c, "grow", "wired");
    set_phase(c.alloc_id, c.req_id, runtime::AllocationPhase::ready);
    tell_requester(c, true, PMIX_SUCCESS, {});
    autoscaler_.grow_completed(c);
    lower_fence(static_cast<uint32_t>(c.target_nodes.size()));
}

void CampaignEngine::start_grow(const runtime::AllocationRequest& request, const std::string& alloc_id,
                                const std::vector<runtime::Node*>& nodes, Answer answer)
{
    runtime::GrowCampaign c;
    open_campaign(c, request, alloc_id);
    for (runtime::Node* node : nodes) {
        node->state = runtime::NodeState::joining;
        c.target_nodes.push_back(node->name);
    }
    uint64_t id = c.id;
    state_.grows()[id] = c;
    state_.raise_fence(static_cast<uint32_t>(nodes.size()));
    set_phase(alloc_id, request.req_id, runtime::AllocationPhase::pending);
    log_campaign(5, fmt::format("campaign {} (grow, {}): node(s) {}, requester {}; launch fence {}", id, alloc_id,
                                util::join(c.target_nodes, ", "), who(c.requester), state_.fence()));
    if (answer) answer({}, alloc_id);
    campaign_started();
    plm::Module* m = plm::base::module();
    Status st = m ? m->launch_daemons(*rt_.jobs().daemon_job(), nodes)
                  : Status(Errc::not_supported, "no launcher (plm) is selected");
    auto it = state_.grows().find(id);
    if (it == state_.grows().end()) return;  // a target failed at once, and the campaign with it
    if (!st) {
        fail_grow(id, st.message(), PMIX_ERR_PROC_FAILED_TO_START);
        return;
    }
    for (runtime::Node* node : nodes) it->second.targets.push_back(node->daemon);
    plm::base::daemons().hold(it->second.targets);
    plm_verbose()(5, "campaign {} (grow): daemon(s) {} launching", id, fmt::join(it->second.targets, ","));
}

bool CampaignEngine::daemon_reported(Rank rank)
{
    if (!state_.enabled()) return false;
    runtime::GrowCampaign* c = state_.grow_of(rank);
    if (!c) return false;
    c->reported.insert(rank);
    plm_verbose()(5, "campaign {} (grow): daemon {} called home ({}/{})", c->id, rank, c->reported.size(),
                  c->targets.size());
    if (c->reported.size() < c->targets.size() || c->wiring) return true;
    c->wiring = true;
    plm::base::daemons().release(c->targets);
    uint64_t id = c->id;
    if (Status st = plm::base::broadcast_wireup([this, id](const Status& s) { complete_grow(id, s); }); !st) {
        fail_grow(id, st.message(), PMIX_ERR_UNREACH);
    }
    return true;
}

bool CampaignEngine::daemon_lost(Rank rank, runtime::ProcState reason, const std::string& why)
{
    if (!state_.enabled() || !rt_.dvm_ready()) return false;
    if (runtime::GrowCampaign* c = grow_of_rank(rank)) {
        pmix_status_t code =
            reason == runtime::ProcState::failed_to_start ? PMIX_ERR_PROC_FAILED_TO_START : PMIX_ERR_LOST_CONNECTION;
        fail_grow(c->id, why, code);
        return true;
    }
    if (runtime::ShrinkCampaign* c = state_.shrink_of(rank)) {
        // Clean exit or crash, it is leaving either way (spec: conformance item 6).
        plm_verbose()(5, "daemon {} (a target of shrink campaign {}) is gone: ignoring it", rank, c->id);
        return true;
    }
    runtime::Node* node = plm::base::daemons().node_of(rank);
    if (!plm::base::daemon_gone(rank)) {
        plm_verbose()(5, "daemon {} had already left the DVM: ignoring it", rank);
        return true;
    }
    // An unrequested departure: the DVM carries on without the node (spec: issue item 7).
    output::error("{}; the DVM carries on without node {} (elastic mode)", why, node ? node->name : "?");
    if (Status st = plm::base::broadcast(rml::tag::daemon_died, msg::encode_ranks({rank})); !st) {
        output::warning("cannot tell the daemons that daemon {} left: {}", rank, st.message());
    }
    if (node) {
        plm::base::end_jobs_on_node(node, why, true);
        plm::base::reset_node(*node);
    }
    return true;
}

void CampaignEngine::drain(const std::string& why)
{
    std::vector<uint64_t> ids;
    for (const auto& [id, c] : state_.grows()) ids.push_back(id);
    for (uint64_t id : ids) fail_grow(id, why, PMIX_ERR_UNREACH);
}

}  // namespace prte::elastic
