#include "mca/grpcomm/base/grpcomm_base.h"

namespace prte::grpcomm {

Module::~Module() = default;

namespace base {

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("grpcomm", kInterfaceVersion, mca::SelectMode::single,
                                                "Group communication: reliable xcast and allgather among daemons");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::grpcomm
