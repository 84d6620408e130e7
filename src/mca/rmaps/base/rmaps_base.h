// Shared code of the RMAPS framework.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "mca/base/framework.h"
#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::base {

mca::Framework& framework();
std::vector<Module*> modules();

// Decides which pool nodes a job may use. The DVM passes one that also excludes nodes whose
// daemon is not wired or is departing; the default accepts nodes that are up or not yet known.
using NodeFilter = std::function<bool(const runtime::Node&)>;
bool node_is_usable(const runtime::Node& node);

// Builds the MapContext, offers the job to the mappers, then assigns ranks. On failure the job is
// left unmapped (no procs, node counters restored). Runs in the master only. An app's --hostfile is read here, so it must name a file the master can read (prun sends an
// absolute path); a missing or malformed file, or a name in it or in --host that is not a node of
// the DVM, fails the job with a one-line message.
Status map_job(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter = node_is_usable);

// Whether `job` could be mapped on the pool's nodes if no other job held any of their slots or
// CPUs (rmaps_room.cc): a dry run of map_job, which leaves the job unmapped and every node as it
// was. Its failure is the mapper's own reason: the job could never fit the DVM as it is. The
// queue (src/elastic/job_queue.h) asks it before holding a job that did not fit now.
Status fits_when_idle(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter = node_is_usable);

// Creates the next proc of `job` on `node` for app `app_index` and counts it against the node.
runtime::Proc& claim_slot(runtime::Job& job, runtime::Node& node, int app_index);

// The nodes the base found `app` may use (MapContext::app_nodes, in pool order); an internal
// error when the context has no list for it, which only a context built by hand can lack.
Status app_candidates(const runtime::Job& job, const runtime::AppContext& app, const MapContext& context,
                      const std::vector<runtime::Node*>*& nodes);

// "app 0 (./a.out)": how messages name an app.
std::string describe_app(const runtime::AppContext& app);

// PRRTE's rule: only the job's explicit :OVERSUBSCRIBE allows it. Slots that came from the hardware
// (no count given) are no exception: allowing it there made `prun -n 100000 /bin/true` on a
// 2-core node start 100,000 processes.
bool oversubscribe_allowed(const runtime::Job& job, const MapContext& context);

// Whether `node` can take `count` more of the job's processes: within its free slots, or beyond
// them when oversubscribing is allowed, but never beyond its hard limit (max_slots). Otherwise
// out_of_resource naming the node, what it has, what was asked and what to do; the caller adds
// which policy and app asked.
Status check_room(const runtime::Job& job, const MapContext& context, const runtime::Node& node, int64_t count);
// The same for `count` more processes of `app`, within its --host cap on `node` too
// (MapContext::app_slot_caps): mappers placing an app call this one.
Status check_room(const runtime::Job& job, const MapContext& context, const runtime::AppContext& app,
                  const runtime::Node& node, int64_t count);

// The slots `node` offers `job`: its slot count, or its hwthreads when the count came from the
// hardware and the job counts hwthreads as CPUs (:HWTCPUS); and with PE=n no more processes than
// its free CPUs can give n each.
int64_t free_slots(const runtime::Job& job, const runtime::Node& node);
// free_slots, less what `app` may still use of its --host cap on `node` (its processes already
// there counted), when it has one.
int64_t app_free_slots(const runtime::Job& job, const MapContext& context, const runtime::AppContext& app,
                       const runtime::Node& node);
// The --host cap of `app` on `node` ("--host vm:2": 2), if it has one.
std::optional<int> app_slot_cap(const MapContext& context, const runtime::AppContext& app, const runtime::Node& node);

// Gives back what a process held on its node: its slot and the CPUs it was bound to (the node's
// pu_load). Called when its job is unmapped or cleaned up.
void release_proc(runtime::Proc& proc);

// Undoes every claim_slot of `job` so it can be mapped again (a remap onto surviving nodes after
// a shrink, spec: shrink-campaign-fence-tracking.txt, Step 4).
void unmap_job(runtime::Job& job);

}  // namespace prte::rmaps::base
