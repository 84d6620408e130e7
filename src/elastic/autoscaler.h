// The autoscaler (prte_autoscale; docs/elastic.md, "Autoscaling"): jobs whose mapping fails only
// for lack of slots (or, with -N/ppr, of nodes) wait instead of failing, as do jobs whose --host
// names hosts the DVM lacks (borrowed by name); the DVM borrows just enough nodes for the jobs waiting
// together (one grow, through the campaign engine's submit(), as palloc -N would), they are
// admitted in arrival order (a later job that fits in the slots they do not need runs first, within
// prte_admission_order and prte_admission_max_passes), and borrowed nodes idle for prte_autoscale_idle_timeout go back
// through a release (a shrink campaign), as palloc --shrink would. It never writes a grow or a
// shrink of its own: every size change it decides is an AllocationRequest like a user's.
//
// Owned by the CampaignEngine, which tells it of its grows' and shrinks' outcomes and of the fence
// coming down; plm's map step asks it (through runtime::Campaigns) whether a job waits its turn or
// waits for slots; state/dvm tells it when a job gives its slots back. Inert unless prte_autoscale
// and prte_elastic_mode are both set. Progress thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/elastic.h"
#include "runtime/job_table.h"
#include "runtime/loop_timer.h"
#include "runtime/runtime.h"
#include "util/status.h"

namespace prte::elastic {

class CampaignEngine;

class Autoscaler {
  public:
    Autoscaler(runtime::Runtime& rt, CampaignEngine& engine);
    ~Autoscaler();
    Autoscaler(const Autoscaler&) = delete;
    Autoscaler& operator=(const Autoscaler&) = delete;

    bool enabled() const;

    // The map step, before mapping: true when the job waits its turn behind jobs already waiting.
    bool hold_for_turn(const runtime::JobPtr& job);
    // The job's mapping failed for lack of slots: true when it waits for nodes; false when it
    // fails, `why` then possibly the reason it cannot wait (the cap).
    bool hold_for_slots(const runtime::JobPtr& job, Status& why);
    // The launch fence came down: the first waiting job may fit.
    void admit_next();
    // A job ends and gives its slots back: its borrowed nodes were busy until now, and the first
    // waiting job may fit once the slots are back.
    void slots_freed(const runtime::Job& job);

    // The engine's outcomes; each ignores campaigns of allocations the autoscaler did not ask for.
    void grow_completed(const runtime::GrowCampaign& c);
    void grow_failed(const std::string& alloc_id, const std::string& why);
    void shrink_completed(const runtime::ShrinkCampaign& c);
    // A release that could not be carried out: its nodes stay borrowed, and may be given back later.
    void shrink_failed(const runtime::ShrinkCampaign& c);

    // What pstat shows: each job waiting (and why), each borrowed node (idle since when).
    struct WaitingView {
        std::string nspace;
        std::string reason;
        double waiting_s = 0;
    };
    std::vector<WaitingView> waiting() const;
    // Seconds each borrowed node has been idle (0: busy now); releasing ones included.
    std::map<std::string, double> borrowed_idle() const;
    const std::set<std::string>& releasing() const { return releasing_; }

  private:
    struct WaitingJob {
        runtime::JobPtr job;
        std::string reason;
        std::chrono::steady_clock::time_point since;
        int passes = 0;  // later jobs let map before it (prte_admission_order backfill)
    };
    // A grow the autoscaler asked for, by allocation id: how many nodes, the slots expected of
    // them, and the jobs waiting when it was asked for (a failure ends them).
    struct PendingGrow {
        uint64_t nodes = 0;
        int64_t slots = 0;
        std::vector<std::string> jobs;
    };

    bool hold_for_hosts(const runtime::JobPtr& job, Status& why);
    // Backfill: whether a job arriving while others wait may map now, in the free slots the
    // waiting jobs do not need, without passing one passed too often.
    bool may_pass(const runtime::Job& job) const;
    // A shortage no grow counted in slots or nodes can cure (PE=, binding, max_slots): the job
    // does not fit even an idle DVM, though the DVM has the slots and nodes it asks for.
    bool no_grow_helps(runtime::Job& job, Status& why);
    void forget_hosts_of(const std::string& alloc_id);
    void enqueue(const runtime::JobPtr& job, runtime::WaitReason why, std::string reason, bool front);
    void schedule_plan();
    void plan();
    void after_admit(const runtime::JobPtr& job);
    void end_waiting(const std::vector<std::string>& nspaces, const std::string& why);
    void check_idle();
    void prune();
    int64_t free_slots() const;
    int64_t total_slots() const;
    int64_t usable_nodes() const;
    uint64_t borrowed_count() const;
    // What the autoscaler may still borrow: the one rule behind both the refusal of a job that
    // could not fit even with all of it and the plan's count of nodes to ask for (issue 43 item
    // 2), the tighter of prte_autoscale_max_nodes and what the lender says it has.
    struct Borrowable {
        bool bounded = false;   // false: neither a cap nor a lender that says how many it has
        uint64_t nodes = 0;     // how many more nodes, when bounded
        std::string limit;      // what bounds it, in words, when bounded
        std::vector<int> lendable_slots;  // the lender's hosts' slots, in order; 0: unstated
        int64_t fallback = 1;   // slots of a would-be node whose count nobody states
        // The slots the k-th node borrowed from now on would bring.
        int64_t slots_of(uint64_t k) const;
    };
    Borrowable borrowable() const;

    runtime::Runtime& rt_;
    CampaignEngine& engine_;
    std::deque<WaitingJob> waiting_;  // arrival order
    runtime::JobPtr admitting_;       // the one job given its turn to map, if any
    std::map<std::string, PendingGrow> grows_;
    // Hosts named by waiting jobs (--host) and asked for by name, by the grow that asks for them.
    std::map<std::string, std::vector<std::string>> hosts_of_grow_;
    std::set<std::string> requested_hosts_;
    // Borrowed nodes (granted to the autoscaler's allocations, wired) and since when each is idle.
    std::map<std::string, std::chrono::steady_clock::time_point> borrowed_;
    std::set<std::string> releasing_;
    runtime::LoopTimer batch_;
    runtime::LoopTimer idle_tick_;
};

}  // namespace prte::elastic
