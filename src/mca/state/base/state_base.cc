#include "mca/state/base/state_base.h"

namespace prte::state {

Module::~Module() = default;

namespace base {

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("state", kInterfaceVersion, mca::SelectMode::single,
                                                "State machine: the job and process state tables");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::state
