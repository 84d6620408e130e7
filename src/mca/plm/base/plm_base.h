// Shared code of the PLM framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/plm/plm.h"

namespace prte::plm::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

}  // namespace prte::plm::base
