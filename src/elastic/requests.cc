// Size-change requests: the checks no RAS module would make, the hand-off to ras::base::modify(),
// the phase-one answer, and what a completed request becomes (a grow, a shrink, or nothing).
#include <fmt/format.h>

#include "elastic/campaign_engine.h"
#include "util/hostlist.h"

namespace prte::elastic {
namespace {

using runtime::AllocDirective;

// Phase-one checks of a release the modules accepted: what leaves must be a daemon of the DVM
// that is neither the master's nor already coming or going.
Status check_release(const std::vector<runtime::Node*>& nodes)
{
    for (const runtime::Node* node : nodes) {
        if (node->daemon == 0) {
            return {Errc::bad_param, fmt::format("cannot release node {}: the DVM's master runs there", node->name)};
        }
        if (node->state == runtime::NodeState::departing) {
            return {Errc::bad_param, fmt::format("cannot release node {}: it is already leaving the DVM", node->name)};
        }
        if (node->state == runtime::NodeState::joining) {
            return {Errc::bad_param, fmt::format("cannot release node {}: it is still joining the DVM", node->name)};
        }
        if (!node->daemon_launched || node->daemon == runtime::kInvalidRank || node->state == runtime::NodeState::down) {
            return {Errc::not_found, fmt::format("cannot release node {}: it is not in the DVM", node->name)};
        }
    }
    return {};
}

// Checks what needs no module: a request a user can get wrong in ways no module would see.
Status check_request(const runtime::AllocationRequest& r)
{
    switch (r.directive) {
    case AllocDirective::new_allocation:
    case AllocDirective::extend:
        if (r.num_nodes == 0 && r.node_list.empty() && r.hostfile.empty()) {
            return {Errc::bad_param, "a request to grow the DVM must ask for nodes: PMIX_ALLOC_NUM_NODES above 0 or "
                                     "a PMIX_ALLOC_NODE_LIST"};
        }
        break;
    case AllocDirective::release:
        if (r.node_list.empty()) {
            return {Errc::bad_param, "a release must name its nodes (PMIX_ALLOC_NODE_LIST)"};
        }
        break;
    case AllocDirective::reacquire:
    case AllocDirective::cancel:
        return {Errc::not_supported, fmt::format("'{}' allocation requests are not supported by this DVM",
                                                 runtime::to_string(r.directive))};
    }
    for (const auto& entry : r.node_list) {
        std::vector<std::string> names;
        std::string_view hosts = entry;
        if (auto colon = entry.find(':'); colon != std::string::npos && r.directive != AllocDirective::release) {
            hosts = std::string_view(entry).substr(0, colon);
        }
        if (Status st = util::expand_hostlist(hosts, names); !st) {
            return {Errc::bad_param, fmt::format("bad node list '{}': {}", entry, st.message())};
        }
    }
    return {};
}

}  // namespace

CampaignEngine::CampaignEngine(runtime::Runtime& rt) : rt_(rt), state_(rt.elastic()), autoscaler_(rt, *this), queue_(rt)
{
    ras::base::set_completion_handler([this](ras::base::CompletedRequest& done) { on_completed(done); });
}

CampaignEngine::~CampaignEngine() { ras::base::set_completion_handler(nullptr); }

CampaignEngine::Answer CampaignEngine::take_answer(uint64_t serial)
{
    auto it = answers_.find(serial);
    if (it == answers_.end()) return {};
    Answer a = std::move(it->second);
    answers_.erase(it);
    return a;
}

void CampaignEngine::on_completed(ras::base::CompletedRequest& done)
{
    Answer answer = take_answer(done.request.serial);
    auto refuse = [&](const Status& why) {
        log_campaign(2, fmt::format("{} request from {} refused: {}", runtime::to_string(done.request.directive),
                                    who(done.request.requester), why.message()));
        if (answer) answer(why, {});
    };
    if (!state_.enabled()) {
        refuse({Errc::not_supported, "the DVM is not elastic (start prte with --prtemca prte_elastic_mode 1)"});
        return;
    }
    if (!done.result.status) {
        refuse(done.result.status);
        return;
    }
    std::string alloc_id = done.result.alloc_id.empty() ? done.request.alloc_id : done.result.alloc_id;
    if (alloc_id.empty()) alloc_id = state_.next_alloc_id();
    if (done.request.directive == AllocDirective::release) {
        if (Status st = check_release(done.releasing); !st) {
            refuse(st);
            return;
        }
        if (done.releasing.empty()) {
            set_phase({}, done.request.req_id, runtime::AllocationPhase::released);
            if (answer) answer({}, alloc_id);  // nothing changes: complete now, no event
            return;
        }
        start_shrink(done.request, alloc_id, done.releasing, std::move(answer));
        return;
    }
    if (done.added.empty()) {
        // Every node already has a daemon: accepted, complete, and no event (spec: "No event when
        // nothing changes").
        log_campaign(5, fmt::format("{} request from {}: every node is already in the DVM; nothing changes",
                                    runtime::to_string(done.request.directive), who(done.request.requester)));
        set_phase(state_.allocations().count(alloc_id) ? std::string() : alloc_id, done.request.req_id,
                  runtime::AllocationPhase::ready);
        if (answer) answer({}, alloc_id);
        return;
    }
    start_grow(done.request, alloc_id, done.added, std::move(answer));
}

void CampaignEngine::submit(runtime::AllocationRequest request, Answer answer)
{
    if (!state_.enabled()) {
        runtime::InertCampaigns().submit(std::move(request), std::move(answer));
        return;
    }
    if (rt_.shutting_down()) {
        answer({Errc::unreachable, "the DVM is shutting down"}, {});
        return;
    }
    if (Status st = check_request(request); !st) {
        log_campaign(2, fmt::format("{} request from {} refused: {}", runtime::to_string(request.directive),
                                    who(request.requester), st.message()));
        answer(st, {});
        return;
    }
    if (request.alloc_id.empty()) request.alloc_id = state_.next_alloc_id();
    request.serial = ++last_serial_;
    answers_[request.serial] = std::move(answer);
    ras::base::framework().verbose()(5, "{} request from {} ({} node(s) named, {} asked for, allocation {})",
                                     runtime::to_string(request.directive), who(request.requester),
                                     request.node_list.size(), request.num_nodes, request.alloc_id);
    Status st = ras::base::modify(request, rt_.pool());
    if (!st) {
        if (Answer a = take_answer(request.serial)) a(st, {});
    }
}

}  // namespace prte::elastic
