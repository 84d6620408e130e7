#include "mca/plm/base/plm_base.h"

namespace prte::plm {

Module::~Module() = default;

namespace base {

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("plm", kInterfaceVersion, mca::SelectMode::single,
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
