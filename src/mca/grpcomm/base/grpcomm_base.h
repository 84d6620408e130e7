// Shared code of the GRPCOMM framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/grpcomm/grpcomm.h"

namespace prte::grpcomm::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

}  // namespace prte::grpcomm::base
