// Shared code of the PLM framework: the framework object and its selected module.
#pragma once

#include <optional>
#include <string>

#include "mca/base/framework.h"
#include "mca/plm/plm.h"
#include "runtime/node.h"

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

// prte_set_slots: the slots of a node whose count nobody gave. A policy takes them from the node's
// topology (cores, hwthreads or pus, numas, packages or sockets); a number (at least 1) is used as
// it is. check_set_slots is the parameter's validator: why `value` is neither, nullopt when it is
// one, so that "4abc" or a misspelt policy stops the program instead of meaning cores.
std::optional<std::string> check_set_slots(const std::string& value);
// The slots `policy` (a value check_set_slots accepts) gives a node of topology `t`: at least 1,
// for a topology that counts none of what the policy names.
int slots_for(const std::string& policy, const runtime::NodeTopology& t);

}  // namespace prte::plm::base
