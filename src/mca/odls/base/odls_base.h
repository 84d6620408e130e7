// Shared code of the ODLS framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/odls/odls.h"

namespace prte::odls::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

// odls_base_sigkill_timeout: seconds between SIGTERM and SIGKILL when local processes are
// terminated (PRRTE's parameter and default, 1); never negative.
int sigkill_timeout_seconds();

}  // namespace prte::odls::base
