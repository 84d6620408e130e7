// Shared code of the RAS framework: the framework object, the start-up allocation, the routing of
// modify() requests, and complete_request(), the single completion point for every modify result.
#pragma once

#include <functional>
#include <optional>

#include "mca/base/framework.h"
#include "mca/ras/ras.h"

namespace prte::ras::base {

mca::Framework& framework();
std::vector<Module*> modules();

// Asks each active module, in priority order, until one adds nodes. An error from a module
// (a malformed hostfile) stops the allocation with that error.
Status allocate(const AllocateContext& context, runtime::NodePool& pool);

// What complete_request() hands on once the node pool is updated: the DVM's elastic machinery
// (fence, campaigns, LAUNCH_DAEMONS / shrink xcast) registers here when it starts. Until one is
// registered (prte_info, unit tests) completed requests stop at the pool update.
struct CompletedRequest {
    runtime::AllocationRequest request;
    ModifyResult result;
    std::vector<runtime::Node*> added;      // pool nodes the grow brings in (new or re-grown)
    std::vector<runtime::Node*> releasing;  // pool nodes the shrink takes out
};
using CompletionHandler = std::function<void(CompletedRequest&)>;
void set_completion_handler(CompletionHandler handler);

// Offers `request` to each active module in priority order; the first that does not answer
// take_next_option owns it. Returns an error (and calls no handler) when none takes it.
Status modify(const runtime::AllocationRequest& request, runtime::NodePool& pool);

// The single completion point (spec: job-launch-state-machine.txt, 7.4.8.1). Updates the pool
// for the directive — adds granted nodes (tagged with the component and allocation), checks that
// released nodes exist — then hands on to the registered completion handler.
void complete_request(const std::string& component, const runtime::AllocationRequest& request,
                      ModifyResult result, runtime::NodePool& pool);

// Offers a completed shrink campaign to every active module, in priority order.
void shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool);
// Offers the nodes of a rolled-back grow to every active module (while the pool still says which
// component brought each in).
void grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool);

// What a grow by a number of nodes could get now: the first component, in priority order, that
// can say (Module::lendable_slots()), with its name; no value when none can.
struct Lendable {
    std::string component;
    std::vector<int> slots;  // of each host it would lend, in order; 0: unstated
};
std::optional<Lendable> lendable();

// A component that learns of nodes by itself (a scheduler granting more) pushes them here: the
// change goes through complete_request() like any request, with no requester, so it gets no
// completion event (spec: elastic-dvm-spec.txt, "No requester, no directed event"). Progress thread.
void push(const std::string& component, ModifyResult result, runtime::NodePool& pool);

}  // namespace prte::ras::base
