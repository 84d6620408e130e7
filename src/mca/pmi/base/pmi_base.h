// Shared code of the PMI framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/pmi/pmi.h"

namespace prte::pmi::base {

mca::Framework& framework();
// The selected module; nullptr when the framework has no component (a site dropped it) or has
// not been selected.
Module* module();

}  // namespace prte::pmi::base
