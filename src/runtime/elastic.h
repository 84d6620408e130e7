// The elastic DVM's bookkeeping (spec: elastic-dvm-spec.txt): dynamic allocation requests as they
// reach the RAS framework, the grow and shrink campaigns they start, the launch fence, the jobs
// parked until the fence is down, and what each allocation's latest size change came to. One
// ElasticState per process, owned by the Runtime; everything in it belongs to the progress thread.
// What is done with it (launching, shrinking, events) is the campaign engine's (src/elastic/).
#pragma once

#include <pmix_common.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/node.h"

namespace prte::runtime {

struct Job;

// spec: job-launch-state-machine.txt, "DVM Extension": NEW/EXTEND grow, RELEASE shrinks.
enum class AllocDirective { new_allocation, extend, release, reacquire, cancel };
const char* to_string(AllocDirective directive);

// A dynamic allocation request (PMIx_Allocation_request, or --add-host from a job) on its way to
// the RAS modules' modify() entry points.
struct AllocationRequest {
    AllocDirective directive = AllocDirective::extend;
    // The process that asked; absent for a size change a scheduler pushes by itself, which
    // therefore gets no completion event (spec: elastic-dvm-spec.txt, "Delivery guarantees").
    std::optional<pmix_proc_t> requester;
    std::string alloc_id;                // PMIX_ALLOC_ID
    std::string req_id;                  // PMIX_ALLOC_REQ_ID, empty when none was supplied
    std::vector<std::string> node_list;  // PMIX_ALLOC_NODE_LIST, expanded; or --add-host names
    std::string hostfile;                // --add-hostfile
    uint64_t num_nodes = 0;              // PMIX_ALLOC_NUM_NODES
    std::vector<pmix_info_t> info;       // the request's full info, for component-specific keys
    // The daemon whose node the requester runs on (0: the master's, tools included): where its
    // completion event is raised.
    Rank requester_daemon = 0;
    // The runtime's own handle on the request, by which its phase-one answer is found again when
    // a module completes it (0: a push with nobody to answer).
    uint64_t serial = 0;

    AllocationRequest() = default;
    AllocationRequest(const AllocationRequest& other);
    AllocationRequest& operator=(const AllocationRequest& other);
    ~AllocationRequest();
};

// What every size change records: its daemons and nodes, who asked, under which allocation.
struct Campaign {
    uint64_t id = 0;
    std::vector<Rank> targets;              // daemon ranks joining or leaving the DVM
    std::vector<std::string> target_nodes;  // their node names, for the RAS hooks
    std::optional<pmix_proc_t> requester;   // none for a push: no completion event
    std::string alloc_id;
    std::string req_id;
    Rank requester_daemon = 0;  // where the requester's completion event is raised
    std::chrono::steady_clock::time_point started{};
};

// One in-progress shrink (spec: shrink-campaign-fence-tracking.txt, Step 1a). Completion is
// collective: the whole campaign is torn down at once when every daemon has received the shrink
// order (spec: collective-shrink-completion.txt), so there is no per-target counting here.
struct ShrinkCampaign : Campaign {};

// One in-progress grow (spec: elastic-dvm-spec.txt, "Grow campaign"): complete once every target
// has called home and the wireup that names them has reached the whole DVM.
struct GrowCampaign : Campaign {
    std::set<Rank> reported;  // targets that have called home
    bool wiring = false;      // the campaign's wireup is on its way
};

// A job parked at the map or launch boundary, and the campaigns that were in progress when it
// parked: a failed grow aborts only the jobs that waited on it (spec: conformance item 4).
struct ParkedJob {
    std::shared_ptr<Job> job;
    std::set<uint64_t> waiting_on;
};

// What PMIX_QUERY_ALLOC_STATUS reports of an allocation's latest size change.
enum class AllocationPhase { pending, ready, failed, released };
const char* to_string(AllocationPhase phase);
struct AllocationRecord {
    AllocationPhase phase = AllocationPhase::pending;
    std::string cause;  // with failed
};

// The elastic state of this process. On the master: the campaigns, the fence and the parked
// jobs. On a daemon: whether it is leaving (a shrink named it).
class ElasticState {
  public:
    // prte_elastic_mode; off, none of the rest is ever used (spec: "Backward compatibility").
    bool enabled() const { return enabled_; }
    void set_enabled(bool on) { enabled_ = on; }

    uint64_t next_campaign_id() { return ++last_campaign_id_; }
    std::string next_alloc_id() { return "alloc-" + std::to_string(++last_alloc_number_); }

    // The launch fence (spec: job-launch-state-machine.txt, 7.4.8.4): raised by each campaign's
    // target count when it starts, lowered by the same when it ends. Jobs pass the map boundary
    // only while it is zero.
    uint32_t fence() const { return fence_; }
    void raise_fence(uint32_t n) { fence_ += n; }
    // Returns true when the fence has come down to zero.
    bool lower_fence(uint32_t n)
    {
        fence_ = n > fence_ ? 0 : fence_ - n;
        return fence_ == 0;
    }

    std::map<uint64_t, GrowCampaign>& grows() { return grows_; }
    std::map<uint64_t, ShrinkCampaign>& shrinks() { return shrinks_; }
    GrowCampaign* grow_of(Rank target);
    ShrinkCampaign* shrink_of(Rank target);
    std::set<uint64_t> campaign_ids() const;

    std::deque<ParkedJob>& held_at_map() { return held_at_map_; }
    std::deque<ParkedJob>& held_at_launch() { return held_at_launch_; }

    std::map<std::string, AllocationRecord>& allocations() { return allocations_; }
    // The outcome of each request that named itself (PMIX_ALLOC_REQ_ID; palloc always does): two
    // size changes of one allocation at once (two shrinks of "initial") each have their own, where
    // the allocation's record says only what the latest came to.
    std::map<std::string, AllocationRecord>& requests() { return requests_; }

    // A daemon named by a shrink: losing a connection now means leaving, not recovering (spec:
    // collective-shrink-completion.txt, "leaving mode").
    bool leaving() const { return leaving_; }
    void set_leaving() { leaving_ = true; }

  private:
    bool enabled_ = false;
    bool leaving_ = false;
    uint64_t last_campaign_id_ = 0;
    uint64_t last_alloc_number_ = 0;
    uint32_t fence_ = 0;
    std::map<uint64_t, GrowCampaign> grows_;
    std::map<uint64_t, ShrinkCampaign> shrinks_;
    std::deque<ParkedJob> held_at_map_;
    std::deque<ParkedJob> held_at_launch_;
    std::map<std::string, AllocationRecord> allocations_;
    std::map<std::string, AllocationRecord> requests_;
};

}  // namespace prte::runtime
