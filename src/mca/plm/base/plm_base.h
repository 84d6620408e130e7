// Shared code of the PLM framework: the framework object and its selected module.
#pragma once

#include "mca/base/framework.h"
#include "mca/plm/plm.h"

namespace prte::plm::base {

mca::Framework& framework();
// The selected module; nullptr until the framework has been selected.
Module* module();

// The framework object's state (plm_base_state.h), and the master's table of daemons in it
// (daemon_table.h): one of each per process, reset when the framework closes.
struct BaseState;
class DaemonTable;
BaseState& state();
DaemonTable& daemons();

}  // namespace prte::plm::base
