// The DVM's queue (prte_queue, prun --queue; docs/user-guide.md, "When the DVM is full: the
// queue"): a job whose mapping fails only because other jobs hold the slots it needs waits for
// them instead of failing, and maps when they end. "Only because": rmaps/base maps it again as if
// no job held anything (fits_when_idle); a job that could never fit the DVM as it is fails at once
// with the mapper's reason, as without the queue.
//
// Admission (docs/elastic.md, "Admission"): when slots free (a job's cleanup, a size change's
// fence coming down) one pass offers the waiting jobs, in arrival order, their turn to map, one at
// a time through the state machine's map step. With prte_admission_order backfill (the default) a
// later job that fits runs while an earlier one still waits, which counts as passing it; once a
// waiting job has been passed prte_admission_max_passes times no later queued job maps before it
// (starvation is bounded). With strict, a queued job never maps while an earlier one waits.
// Jobs without the queue are never held: they map if they fit, else fail, as ever.
//
// Owned by the CampaignEngine, which the runtime always has (runtime::Campaigns): plm's map step
// asks it through hold_for_turn / hold_for_slots after the autoscaler; state/dvm tells it of freed
// slots. Progress thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "runtime/job_table.h"
#include "runtime/loop_timer.h"
#include "runtime/runtime.h"
#include "util/status.h"

namespace prte::elastic {

class JobQueue {
  public:
    explicit JobQueue(runtime::Runtime& rt);
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    // Whether `job` waits rather than fails when the slots it needs are held (prte_queue, or its
    // prun --queue).
    bool queues(const runtime::Job& job) const;

    // The map step, before mapping: true when the job waits behind the queue (strict order, or a
    // waiting job passed too often), or when it was given its turn but has ended meanwhile.
    bool hold_for_turn(const runtime::JobPtr& job);
    // Its mapping failed (`why`): true when it waits in the queue; false when it fails with `why`.
    bool hold_for_slots(const runtime::JobPtr& job, const Status& why);
    // Slots were given back (a job's cleanup) or added (the fence came down): a pass, posted.
    void slots_freed();

    // What pstat shows: each queued job, in order, why it waits and for how long.
    struct WaitingView {
        std::string nspace;
        std::string reason;
        double waiting_s = 0;
    };
    std::vector<WaitingView> waiting() const;

  private:
    struct Entry {
        runtime::JobPtr job;
        uint64_t arrival = 0;
        int passes = 0;  // later jobs that mapped while it waited
        std::chrono::steady_clock::time_point since;
        std::unique_ptr<runtime::LoopTimer> timeout;  // prun --queue-timeout
    };

    void enqueue(const runtime::JobPtr& job);
    void park(runtime::Job& job, bool tell);
    void after_map(const runtime::JobPtr& job, uint64_t arrival);
    void start_pass();
    void offer_from(size_t index);
    void timed_out(const std::string& nspace);
    void prune();
    Entry* find(const runtime::Job& job);
    // The entry a later job may not pass (strict order, or passed too often), if any.
    const Entry* blocking() const;
    size_t jobs_holding_slots() const;
    std::string reason() const;

    runtime::Runtime& rt_;
    std::deque<Entry> queue_;  // arrival order
    uint64_t next_arrival_ = 0;
    // The queued job given its turn to map in the pass under way, and where the pass stands.
    runtime::JobPtr offered_;
    size_t cursor_ = 0;
    bool pass_again_ = false;  // slots freed during a pass: another one follows it
    bool pass_posted_ = false;
};

}  // namespace prte::elastic
