// The RAS (resource allocation subsystem) framework: where the DVM's nodes come from.
//
// Multi-select: every available component is active, in priority order. At start-up allocate()
// is offered to each in turn until one supplies nodes (a scheduler's component ranks above
// ras/hosts, which reads --host/--hostfile or falls back to the local node).
//
// At run time a dynamic allocation request (PMIx_Allocation_request, --add-host) reaches the
// components' modify() entry point. Whatever a component decides, its result goes back through
// the one RequestCompletion it was handed, which leads only to ras::base::complete_request():
// the single place that updates the node pool and starts a grow or a shrink campaign, keeping the
// launch fence in step with it (spec: job-launch-state-machine.txt, 7.4.8.1, the warning). A
// component never activates daemon launch itself; it has no way to.
//
// Threading: every entry point is called on the progress thread, and a component that finishes
// a request later (after asking a scheduler) must complete it on the progress thread too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "runtime/elastic.h"
#include "runtime/node.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::ras {

// Bumped whenever this header changes in a way that breaks a built component.
// 2: grow_failed(), and AllocationRequest gained requester_daemon and serial.
// 3: runtime::Node gained scheduler_job.
// 4: runtime::Node gained hw, simulated and pu_load; runtime::Job's placement policy grew (issue 25).
// 5: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// 6: Module::lendable_slots() (autoscaling asks a lender what it could lend).
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 6;

// What the DVM was started with, for allocate().
struct AllocateContext {
    std::vector<std::string> hosts;  // --host entries, "name[:slots]"
    std::string hostfile;            // --hostfile
};

// What a component decided about a modify() request.
struct ModifyResult {
    // A failure here rejects the request in phase one: the requester gets the error in its
    // allocation response and no completion event (spec: elastic-dvm-spec.txt, "Delivery guarantees").
    Status status;
    std::string alloc_id;                       // the allocation the request was served from
    std::vector<runtime::Node> nodes_added;     // NEW / EXTEND: nodes to bring into the DVM
    std::vector<std::string> nodes_to_release;  // RELEASE: names of nodes to take out
};

class RequestCompletion;
class Module;
namespace base {
// Forward declaration so it can be RequestCompletion's friend; see mca/ras/base/ras_base.h.
Status modify(const runtime::AllocationRequest& request, runtime::NodePool& pool);
}  // namespace base

// A one-shot, move-only handle to finish a modify() request. Completing it more than once is
// impossible; dropping it without completing completes the request with an error naming the
// component, so a buggy component can never leave a requester waiting forever.
class RequestCompletion {
  public:
    using Sink = std::function<void(ModifyResult)>;

    RequestCompletion() = default;
    RequestCompletion(std::string component, Sink sink);
    RequestCompletion(RequestCompletion&& other) noexcept;
    RequestCompletion& operator=(RequestCompletion&& other) noexcept;
    RequestCompletion(const RequestCompletion&) = delete;
    RequestCompletion& operator=(const RequestCompletion&) = delete;
    ~RequestCompletion();

    void complete(ModifyResult result);
    bool pending() const { return static_cast<bool>(sink_); }

  private:
    // The base takes back a completion that a module passed on (take_next_option) without firing it.
    friend Status base::modify(const runtime::AllocationRequest& request, runtime::NodePool& pool);
    void disarm() { sink_ = nullptr; }

    std::string component_;
    Sink sink_;
};

class Module : public mca::Module {
  public:
    ~Module() override;

    // Adds the nodes this component knows of to `pool`. Returns take_next_option when it has no
    // allocation to offer here (not running under its resource manager), so the next is asked.
    virtual Status allocate(const AllocateContext& context, runtime::NodePool& pool) = 0;

    // A dynamic allocation request. `completion` stays the caller's until the module takes it:
    //  - not for this component: return take_next_option and leave `completion` alone;
    //  - answer now: call completion.complete(result) and return success;
    //  - answer later: move it into the module's own state (std::move) and return success.
    // A module that returns success having done neither gets its request answered with an error
    // naming it. The default handles nothing.
    virtual Status modify(const runtime::AllocationRequest& request, RequestCompletion&& completion);

    // Optional: a shrink campaign has completed (every target departed, routing repaired). Offered
    // to every active component before the requester's completion event, so each can hand its
    // own share of the departed nodes back to its resource manager (spec: elastic-dvm-spec.txt,
    // "Resource release at shrink completion"). `pool` still holds the departed nodes, marked
    // down, with the component and allocation that brought each in.
    virtual void shrink_complete(const runtime::ShrinkCampaign& /*campaign*/, const runtime::NodePool& /*pool*/) noexcept {}

    // Optional: a grow failed and was rolled back; `nodes` (names) left the DVM without ever
    // running a job. A component that lent them takes its own back (spec: elastic-dvm-spec.txt,
    // "a failed grow is rolled back").
    virtual void grow_failed(const std::vector<std::string>& /*nodes*/, const runtime::NodePool& /*pool*/) noexcept {}

    // Optional: what this component could lend now for a grow by a number of nodes, as the slots
    // of each host in the order it would lend them (0: unstated, the node's daemon will say); no
    // value when it cannot say (it lends nothing, or asks a scheduler). The autoscaler sizes its
    // grows and its cap from it (src/elastic/autoscaler.h).
    virtual std::optional<std::vector<int>> lendable_slots() noexcept { return std::nullopt; }
    // Optional: an allocation this component granted is over (its session ended).
    virtual void release_allocation(const std::string& /*alloc_id*/) noexcept {}
};

}  // namespace prte::ras
