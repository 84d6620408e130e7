#include "mca/plm/base/plm_base.h"

#include "mca/base/param.h"

namespace prte::plm {

Module::~Module() = default;

namespace base {
namespace {

// What every launcher's daemons share, registered with the framework so prte_info lists them.
class PlmFramework final : public mca::TypedFramework<Module> {
  public:
    using TypedFramework::TypedFramework;

  protected:
    void register_base_params(mca::ParamRegistry& registry) override
    {
        registry.register_string({"plm", "base", "prted"}, PRTE_BINDIR "/prted",
                                 "The prted program the launchers start on each node");
        registry.register_string({"prte", "", "set_slots"}, "cores",
                                 "Slots of a node whose count was not given: cores, hwthreads, numas, packages, or a "
                                 "number");
    }
};

}  // namespace

mca::Framework& framework()
{
    static PlmFramework instance("plm", kInterfaceVersion, mca::SelectMode::single,
                                 "Process lifecycle management: launches and terminates daemons");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::plm
