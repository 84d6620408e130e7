#include "mca/plm/base/plm_base.h"

#include "mca/base/param.h"
#include "mca/plm/base/plm_base_state.h"
#include "runtime/slot_policy.h"

namespace prte::plm {

Module::~Module() = default;

namespace base {
namespace {

// What every launcher's daemons share, registered with the framework so prte_info lists them.
class PlmFramework final : public mca::TypedFramework<Module> {
  public:
    using TypedFramework::TypedFramework;

    BaseState& state() { return state_; }

  protected:
    // An armed teardown timer goes here, before the event loop it is armed on.
    void close_base() override { state_ = BaseState{}; }

    void register_base_params(mca::ParamRegistry& registry) override
    {
        registry.register_string({"plm", "base", "prted"}, PRTE_BINDIR "/prted",
                                 "The prted program the launchers start on each node");
        registry.register_string({"prte", "", "set_slots"}, runtime::kDefaultSlotPolicy,
                                 "Slots of a node whose count was not given: cores, hwthreads, numas, packages, or a "
                                 "number",
                                 runtime::check_slot_policy);
    }

  private:
    BaseState state_;
};

PlmFramework& plm_framework()
{
    static PlmFramework instance("plm", kInterfaceVersion, mca::SelectMode::single,
                                 "Process lifecycle management: launches and terminates daemons");
    return instance;
}

}  // namespace

mca::Framework& framework() { return plm_framework(); }

BaseState& state() { return plm_framework().state(); }

DaemonTable& daemons() { return state().daemons; }

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::plm
