// The elastic DVM's campaigns as the rest of the runtime calls them (spec: elastic-dvm-spec.txt;
// job-launch-state-machine.txt 7.4.8). The engine (src/elastic/) sits above the frameworks: it
// launches daemons through plm and hears from ras. plm, state, errmgr and the PMIx host call it
// back through this interface, which the program installs in the Runtime (Runtime::campaigns());
// until then, and in a DVM that is not elastic, an inert one refuses requests and holds no job.
// All on the progress thread.
#pragma once

#include <functional>
#include <string>

#include "runtime/elastic.h"
#include "runtime/job_table.h"
#include "runtime/states.h"
#include "util/status.h"

namespace prte::runtime {

class Campaigns {
  public:
    virtual ~Campaigns() = default;

    // Phase one of a size change: accepted (its allocation id) or refused (why). Called once.
    using Answer = std::function<void(const Status& status, const std::string& alloc_id)>;
    // A dynamic allocation request from a tool, a process or a job's --add-host.
    virtual void submit(AllocationRequest request, Answer answer) = 0;

    // The map boundary (VM_READY -> MAP): true when the job was parked because a size change is
    // in progress; the fence's release moves it on.
    virtual bool hold_at_map(const JobPtr& job) = 0;
    // The launch boundary (LAUNCH_APPS): true when the job was parked because a shrink is in
    // progress.
    virtual bool hold_at_launch(const JobPtr& job) = 0;

    // A daemon called home: true when it is a grow campaign's target (the campaign accounts for it).
    virtual bool daemon_reported(Rank rank) = 0;
    // A daemon was lost: true when elastic mode has handled it (a grow target: its campaign is
    // rolled back; a shrink target or one already gone: ignored; any other: it leaves the DVM).
    virtual bool daemon_lost(Rank rank, ProcState reason, const std::string& why) = 0;

    // The DVM is shutting down: pending grows are drained as failures, so no job stays parked.
    virtual void drain(const std::string& why) = 0;

    // Autoscaling (prte_autoscale, src/elastic/autoscaler.h); without it none holds a job.
    // The map step, before mapping: true when the job waits its turn behind jobs waiting for nodes.
    virtual bool hold_for_turn(const JobPtr&) { return false; }
    // The job's mapping failed for lack of slots (`why`): true when it waits for the DVM to grow;
    // false when it fails, with `why` then possibly replaced by the reason it cannot wait.
    virtual bool hold_for_slots(const JobPtr&, Status&) { return false; }
    // The job ended and is about to give its slots back.
    virtual void slots_freed(const Job&) {}

    // What pstat shows (nodes, jobs, campaigns in progress), as a table or JSON; empty: not known.
    virtual std::string dvm_status(bool /*json*/) const { return {}; }
};

// What a process has without the engine: every request refused as not elastic, no job held, no
// daemon claimed.
class InertCampaigns final : public Campaigns {
  public:
    void submit(AllocationRequest request, Answer answer) override;
    bool hold_at_map(const JobPtr&) override { return false; }
    bool hold_at_launch(const JobPtr&) override { return false; }
    bool daemon_reported(Rank) override { return false; }
    bool daemon_lost(Rank, ProcState, const std::string&) override { return false; }
    void drain(const std::string&) override {}
};

}  // namespace prte::runtime
