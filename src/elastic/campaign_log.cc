// What grow and shrink campaigns share: how they are opened and logged, the allocation's phase
// (what PMIX_QUERY_ALLOC_STATUS answers), and the one completion event to the requester.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "elastic/campaign_engine.h"
#include "mca/plm/base/plm_base.h"
#include "util/strings.h"

namespace prte::elastic {
namespace {

// Outcomes of allocations that hold no node any more are kept for the last this many, so a DVM
// that grows and shrinks for months stays bounded; an older one is no longer known (NOT_FOUND).
constexpr size_t kFinishedAllocationsKept = 1024;

}  // namespace

void log_campaign(int level, const std::string& line)
{
    ras::base::framework().verbose()(level, "{}", line);
    plm::base::framework().verbose()(level, "{}", line);
}

std::string who(const std::optional<pmix_proc_t>& requester)
{
    if (!requester) return "no requester (a push)";
    return fmt::format("{}.{}", requester->nspace, requester->rank);
}

double elapsed_ms(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

void log_completion(const runtime::Campaign& c, const char* kind, const char* outcome)
{
    log_campaign(5, fmt::format("campaign {} ({}, {}) complete in {:.1f} ms: daemon(s) {} on {} {}, requester {}", c.id,
                                kind, c.alloc_id, elapsed_ms(c.started), fmt::join(c.targets, ","),
                                util::join(c.target_nodes, ", "), outcome, who(c.requester)));
}

// What starts a campaign of either kind: its id, who asked, its allocation, the clock.
void CampaignEngine::open_campaign(runtime::Campaign& c, const runtime::AllocationRequest& request,
                                   const std::string& alloc_id)
{
    c.id = state_.next_campaign_id();
    c.requester = request.requester;
    c.requester_daemon = request.requester_daemon;
    c.alloc_id = alloc_id;
    c.req_id = request.req_id;
    c.started = std::chrono::steady_clock::now();
}

void CampaignEngine::set_phase(const std::string& alloc_id, const std::string& req_id, runtime::AllocationPhase phase,
                               const std::string& cause)
{
    using runtime::AllocationPhase;
    if (!req_id.empty()) {
        auto& requests = state_.requests();
        if (!requests.count(req_id)) finished_requests_.push_back(req_id);
        requests[req_id] = {phase, cause};
        while (finished_requests_.size() > kFinishedAllocationsKept) {
            requests.erase(finished_requests_.front());
            finished_requests_.pop_front();
        }
    }
    if (alloc_id.empty()) return;
    auto& records = state_.allocations();
    records[alloc_id] = {phase, cause};
    if (phase != AllocationPhase::released && phase != AllocationPhase::failed) return;
    finished_allocations_.push_back(alloc_id);
    while (finished_allocations_.size() > kFinishedAllocationsKept) {
        const std::string& oldest = finished_allocations_.front();
        auto it = records.find(oldest);
        bool still_holds_nodes = false;
        for (const runtime::Node* node : std::as_const(rt_.pool()).nodes()) {
            still_holds_nodes = still_holds_nodes || (node->alloc_id == oldest && node->daemon_launched);
        }
        if (it != records.end() && !still_holds_nodes &&
            (it->second.phase == AllocationPhase::released || it->second.phase == AllocationPhase::failed)) {
            records.erase(it);
        }
        finished_allocations_.pop_front();
    }
}

// Phase two: exactly one event to the requester, none without one (spec: "Delivery guarantees").
void CampaignEngine::tell_requester(const runtime::Campaign& c, bool success, pmix_status_t cause,
                                    const std::string& message)
{
    if (!c.requester) return;
    rt_.host().notify_allocation_outcome({*c.requester, c.requester_daemon, c.alloc_id, c.req_id, success, cause, message});
}

}  // namespace prte::elastic
