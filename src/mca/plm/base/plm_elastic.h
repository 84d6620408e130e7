// The elastic DVM on the master (spec: elastic-dvm-spec.txt; job-launch-state-machine.txt 7.4.8;
// shrink-campaign-fence-tracking.txt; collective-shrink-completion.txt): allocation requests in,
// grow and shrink campaigns out, the launch fence and the jobs parked behind it, and the
// two-phase answer to the requester. The state lives in runtime::ElasticState; this is what acts
// on it. All on the progress thread; inert unless prte_elastic_mode is set.
//
// A request's life:
//   submit() -> ras::base::modify() -> a module -> ras::base::complete_request() -> on_completed()
//   -> phase one answered (status, alloc id) -> a grow or shrink campaign, the fence raised
//   -> the campaign completes or fails -> the fence lowered, parked jobs released or aborted,
//   and exactly one completion event to the requester (PMIX_DVM_IS_READY / PMIX_ERR_DVM_MOD).
#pragma once

#include <functional>
#include <string>

#include "runtime/elastic.h"
#include "runtime/job_table.h"
#include "runtime/states.h"
#include "util/status.h"

namespace prte::plm::base::elastic {

// Master, at start-up: routes completed RAS requests here.
void enable();

// Phase one: the request was accepted (its allocation id) or refused (why). Called once.
using Answer = std::function<void(const Status& status, const std::string& alloc_id)>;
// A dynamic allocation request from a tool, a process or a job's --add-host.
void submit(runtime::AllocationRequest request, Answer answer);

// The map boundary (VM_READY -> MAP): true when the job was parked because a size change is in
// progress; the fence's release moves it on.
bool hold_at_map(const runtime::JobPtr& job);
// The launch boundary (LAUNCH_APPS): true when the job was parked because a shrink is in progress.
bool hold_at_launch(const runtime::JobPtr& job);

// A daemon called home: true when it is a grow campaign's target (the campaign accounts for it).
bool daemon_reported(runtime::Rank rank);
// A daemon was lost: true when elastic mode has handled it (a grow target: its campaign is
// rolled back; a shrink target or one already gone: ignored; any other: it leaves the DVM alone).
bool daemon_lost(runtime::Rank rank, runtime::ProcState reason, const std::string& why);

// The DVM is shutting down: pending grows are drained as failures, so no job stays parked.
void drain(const std::string& why);

}  // namespace prte::plm::base::elastic
