#include "mca/errmgr/base/errmgr_base.h"

namespace prte::errmgr {

Module::~Module() = default;

bool Module::restart(const runtime::JobPtr&, runtime::Proc&) { return false; }

namespace base {

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("errmgr", kInterfaceVersion, mca::SelectMode::single,
                                                "Error management: what happens when a process or daemon fails");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::errmgr
