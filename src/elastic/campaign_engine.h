// The elastic DVM's engine on the master (spec: elastic-dvm-spec.txt; job-launch-state-machine.txt
// 7.4.8; shrink-campaign-fence-tracking.txt; collective-shrink-completion.txt): allocation requests
// in, grow and shrink campaigns out, the launch fence and the jobs parked behind it, and the
// two-phase answer to the requester. Inert unless prte_elastic_mode is set.
//
// A request's life:
//   submit() -> ras::base::modify() -> a module -> ras::base::complete_request() -> on_completed()
//   -> phase one answered (status, alloc id) -> a grow or shrink campaign, the fence raised
//   -> the campaign completes or fails -> the fence lowered, parked jobs released or aborted,
//   and exactly one completion event to the requester (PMIX_DVM_IS_READY / PMIX_ERR_DVM_MOD).
//
// The shared bookkeeping (campaigns, fence, parked jobs, allocation outcomes) is the Runtime's
// ElasticState, which the allocation status query and the daemons read too; what only the engine
// uses (phase-one answers, the test hold) it owns. Files: requests.cc (submit, on_completed),
// launch_fence.cc (the two hold points and the release), grow.cc, shrink.cc, campaign_log.cc (what
// both kinds share: logging, allocation phases, the requester's event), dvm_status.cc (what pstat
// shows); the autoscaler, which asks the engine for grows and releases, is its own class
// (autoscaler.h), and so is the queue of jobs waiting for slots (job_queue.h). Progress thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "elastic/autoscaler.h"
#include "elastic/job_queue.h"
#include "runtime/loop_timer.h"
#include "mca/ras/base/ras_base.h"
#include "runtime/campaigns.h"
#include "runtime/elastic.h"
#include "runtime/runtime.h"

namespace prte::elastic {

class CampaignEngine final : public runtime::Campaigns {
  public:
    // Routes completed RAS requests to this engine for as long as it lives.
    explicit CampaignEngine(runtime::Runtime& rt);
    ~CampaignEngine() override;
    CampaignEngine(const CampaignEngine&) = delete;
    CampaignEngine& operator=(const CampaignEngine&) = delete;

    void submit(runtime::AllocationRequest request, Answer answer) override;
    bool hold_at_map(const runtime::JobPtr& job) override;
    bool hold_at_launch(const runtime::JobPtr& job) override;
    bool daemon_reported(runtime::Rank rank) override;
    bool daemon_lost(runtime::Rank rank, runtime::ProcState reason, const std::string& why) override;
    void drain(const std::string& why) override;
    // The autoscaler first (it grows the DVM for the job), then the queue (it waits for slots).
    bool hold_for_turn(const runtime::JobPtr& job) override
    {
        return autoscaler_.hold_for_turn(job) || queue_.hold_for_turn(job);
    }
    bool hold_for_slots(const runtime::JobPtr& job, Status& why) override
    {
        return autoscaler_.hold_for_slots(job, why) || queue_.hold_for_slots(job, why);
    }
    void slots_freed(const runtime::Job& job) override
    {
        autoscaler_.slots_freed(job);
        queue_.slots_freed();
    }
    // dvm_status.cc
    std::string dvm_status(bool json) const override;

  private:
    // requests.cc
    void on_completed(ras::base::CompletedRequest& done);
    Answer take_answer(uint64_t serial);

    // launch_fence.cc
    // At the launch boundary (`where_is_launch`) or the map boundary.
    void park(std::deque<runtime::ParkedJob>& where, const runtime::JobPtr& job, bool where_is_launch);
    void fence_release();
    void lower_fence(uint32_t n);
    void campaign_started();

    // grow.cc
    runtime::GrowCampaign* grow_of_rank(runtime::Rank rank);
    void start_grow(const runtime::AllocationRequest& request, const std::string& alloc_id,
                    const std::vector<runtime::Node*>& nodes, Answer answer);
    void fail_grow(uint64_t id, const std::string& cause, pmix_status_t code);
    void complete_grow(uint64_t id, const Status& st);

    // shrink.cc
    void start_shrink(const runtime::AllocationRequest& request, const std::string& alloc_id,
                      const std::vector<runtime::Node*>& nodes, Answer answer);
    void complete_shrink(uint64_t id, const Status& st);
    // After a shrink completes: closes the connections of any target the order cannot have reached.
    void watch_unreached_targets(const runtime::ShrinkCampaign& c);

    // campaign_log.cc
    void open_campaign(runtime::Campaign& c, const runtime::AllocationRequest& request, const std::string& alloc_id);
    // The allocation's phase, and the request's (`req_id`, when it named itself).
    void set_phase(const std::string& alloc_id, const std::string& req_id, runtime::AllocationPhase phase,
                   const std::string& cause = {});
    void tell_requester(const runtime::Campaign& c, bool success, pmix_status_t cause, const std::string& message);

    runtime::Runtime& rt_;
    runtime::ElasticState& state_;
    // Phase-one answers of requests the RAS modules still hold, by request serial.
    std::map<uint64_t, Answer> answers_;
    uint64_t last_serial_ = 0;
    // Allocations that hold no node any more, oldest first: their outcomes are forgotten past
    // kFinishedAllocationsKept, so a DVM that grows and shrinks for months stays bounded.
    std::deque<std::string> finished_allocations_;
    // Requests with an outcome, oldest first: forgotten past kFinishedAllocationsKept as well.
    std::deque<std::string> finished_requests_;
    // prte_test_hold_launch (tests only): jobs held until the next campaign starts, each once.
    std::vector<runtime::JobPtr> test_held_;
    std::set<std::string> test_held_once_;
    // Completed shrinks' watches for targets the order never reached, by campaign id (shrink.cc).
    std::map<uint64_t, runtime::LoopTimer> unreached_watches_;
    // prte_autoscale: its grows and releases go through submit() like any other request.
    Autoscaler autoscaler_;
    // prte_queue / prun --queue: jobs waiting for slots other jobs hold (job_queue.h).
    JobQueue queue_;
};

// Shared by the engine's files: the verbose lines of a campaign go to both streams the spec
// names, ras (the request) and plm (the daemons).
void log_campaign(int level, const std::string& line);
std::string who(const std::optional<pmix_proc_t>& requester);
double elapsed_ms(std::chrono::steady_clock::time_point since);
// "campaign 3 (grow, alloc-1) complete in 10.3 ms: daemon(s) 5,6 on n5, n6 <outcome>, requester ...".
void log_completion(const runtime::Campaign& c, const char* kind, const char* outcome);

}  // namespace prte::elastic
