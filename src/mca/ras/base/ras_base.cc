#include "mca/ras/base/ras_base.h"

#include <fmt/format.h>

#include "runtime/runtime.h"
#include "util/strings.h"

namespace prte::ras {

RequestCompletion::RequestCompletion(std::string component, Sink sink)
    : component_(std::move(component)), sink_(std::move(sink))
{
}

RequestCompletion::RequestCompletion(RequestCompletion&& other) noexcept
    : component_(std::move(other.component_)), sink_(std::exchange(other.sink_, nullptr))
{
}

RequestCompletion& RequestCompletion::operator=(RequestCompletion&& other) noexcept
{
    if (this != &other) {
        component_ = std::move(other.component_);
        sink_ = std::exchange(other.sink_, nullptr);
    }
    return *this;
}

RequestCompletion::~RequestCompletion()
{
    if (sink_) {
        complete({Status(Errc::internal,
                         fmt::format("ras component {} dropped the allocation request without answering it",
                                     component_)),
                  {}, {}, {}});
    }
}

void RequestCompletion::complete(ModifyResult result)
{
    if (!sink_) return;
    Sink sink = std::exchange(sink_, nullptr);
    sink(std::move(result));
}

Module::~Module() = default;

Status Module::modify(const runtime::AllocationRequest&, RequestCompletion&&)
{
    return {Errc::take_next_option, "not handled"};
}

namespace base {
namespace {

// The ras framework object owns where completed requests go: the campaign engine sets it when it
// is made and clears it when it goes (elastic/requests.cc).
class RasFramework final : public mca::TypedFramework<Module> {
  public:
    using TypedFramework::TypedFramework;

    CompletionHandler completion_handler;
};

RasFramework& ras_framework()
{
    static RasFramework instance("ras", kInterfaceVersion, mca::SelectMode::multi,
                                 "Resource allocation: where the DVM's nodes come from");
    return instance;
}

CompletionHandler& handler_storage() { return ras_framework().completion_handler; }

}  // namespace

mca::Framework& framework() { return ras_framework(); }

std::vector<Module*> modules() { return mca::modules_of<Module>(framework()); }

Status allocate(const AllocateContext& context, runtime::NodePool& pool)
{
    for (size_t i = 0; i < framework().selected().size(); ++i) {
        const auto& selected = framework().selected()[i];
        auto* module = static_cast<Module*>(selected.module.get());
        size_t before = pool.size();
        Status st = module->allocate(context, pool);
        if (st.code() == Errc::take_next_option) {
            framework().verbose()(5, "allocate: {} has no allocation here", selected.descriptor->name);
            continue;
        }
        if (!st) return st;
        for (size_t n = before; n < pool.size(); ++n) {
            if (pool.at(n).ras_component.empty()) pool.at(n).ras_component = selected.descriptor->name;
        }
        framework().verbose()(5, "allocate: {} supplied {} node(s)", selected.descriptor->name, pool.size() - before);
        if (pool.size() > 0) return {};
    }
    return {Errc::not_found, "no resource allocation component supplied any node"};
}

void set_completion_handler(CompletionHandler handler) { handler_storage() = std::move(handler); }

std::optional<Lendable> lendable()
{
    for (const auto& selected : framework().selected()) {
        auto* module = static_cast<Module*>(selected.module.get());
        if (auto slots = module->lendable_slots()) return Lendable{selected.descriptor->name, std::move(*slots)};
    }
    return std::nullopt;
}

Status modify(const runtime::AllocationRequest& request, runtime::NodePool& pool)
{
    for (const auto& selected : framework().selected()) {
        auto* module = static_cast<Module*>(selected.module.get());
        std::string name = selected.descriptor->name;
        // The request is copied into the sink: a component may complete long after the caller's
        // copy is gone.
        RequestCompletion completion(name, [name, request, &pool](ModifyResult result) {
            complete_request(name, request, std::move(result), pool);
        });
        Status st = module->modify(request, std::move(completion));
        if (st.code() == Errc::take_next_option) {
            // Passed on: the completion was not the module's to fire, so it must not fire now.
            completion.disarm();
            continue;
        }
        framework().verbose()(5, "modify: {} request taken by {}", to_string(request.directive), name);
        if (!st) {
            // Rejected outright: the caller reports `st`; a completion left behind must not answer too.
            completion.disarm();
            return st;
        }
        // Success while still holding the completion: the module neither answered nor kept it.
        // Destroying it below answers the requester with the drop-guard error naming the module.
        return st;
    }
    return {Errc::not_supported,
            fmt::format("no resource allocation component can handle a '{}' request", to_string(request.directive))};
}

void complete_request(const std::string& component, const runtime::AllocationRequest& request, ModifyResult result,
                      runtime::NodePool& pool)
{
    if (runtime::Runtime::instance().finalizing()) {
        // A request still pending when a component closes (a scheduler had not answered): the
        // PMIx server that would carry the answer is gone, and so is the DVM it was for.
        framework().verbose()(5, "complete_request: {} request from {} dropped: the DVM has ended",
                              to_string(request.directive), component);
        return;
    }
    CompletedRequest done{request, std::move(result), {}, {}};
    if (done.result.status) {
        if (done.result.alloc_id.empty()) done.result.alloc_id = request.alloc_id;
        for (const auto& granted : done.result.nodes_added) {
            runtime::Node& node = pool.add(granted);
            if (node.ras_component.empty()) node.ras_component = component;
            if (node.alloc_id.empty()) node.alloc_id = done.result.alloc_id;
            // A node that already has a live daemon adds nothing to the DVM (spec: "No event when
            // nothing changes"); only nodes that need a daemon count as added.
            if (!node.daemon_launched) done.added.push_back(&node);
        }
        std::vector<std::string> unknown;
        for (const auto& name : done.result.nodes_to_release) {
            runtime::Node* node = pool.find(name);
            if (!node) {
                unknown.push_back(name);
                continue;
            }
            done.releasing.push_back(node);
        }
        if (!unknown.empty()) {
            done.result.status = Status(Errc::not_found, fmt::format("cannot release {}: not in the DVM",
                                                                     util::join(unknown, ", ")));
            done.releasing.clear();
        }
    }
    framework().verbose()(5, "complete_request: {} request from {}: {} ({} added, {} releasing)",
                          to_string(request.directive), component,
                          done.result.status ? "accepted" : done.result.status.message(), done.added.size(),
                          done.releasing.size());
    if (handler_storage()) handler_storage()(done);
}

void shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool)
{
    for (Module* module : modules()) module->shrink_complete(campaign, pool);
}

void grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool)
{
    for (Module* module : modules()) module->grow_failed(nodes, pool);
}

void push(const std::string& component, ModifyResult result, runtime::NodePool& pool)
{
    runtime::AllocationRequest request;
    request.directive = result.nodes_to_release.empty() ? runtime::AllocDirective::extend
                                                        : runtime::AllocDirective::release;
    request.alloc_id = result.alloc_id;
    framework().verbose()(5, "push: {} pushes a '{}' with no requester", component, to_string(request.directive));
    complete_request(component, request, std::move(result), pool);
}

}  // namespace base
}  // namespace prte::ras
