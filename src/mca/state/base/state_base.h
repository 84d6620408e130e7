// Shared code of the STATE framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/state/state.h"

namespace prte::state::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

}  // namespace prte::state::base
