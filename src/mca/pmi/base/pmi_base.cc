#include "mca/pmi/base/pmi_base.h"

namespace prte::pmi {

Module::~Module() = default;

namespace base {

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("pmi", kInterfaceVersion, mca::SelectMode::single,
                                                "PMI-1/PMI-2 wire protocol server for MPICH-derived programs");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::pmi
