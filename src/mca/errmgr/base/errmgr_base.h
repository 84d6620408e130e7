// Shared code of the ERRMGR framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/errmgr/errmgr.h"

namespace prte::errmgr::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

}  // namespace prte::errmgr::base
