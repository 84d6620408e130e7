// "Slots from the hardware": how many slots a node gets when nobody gave its count (no hostfile
// slots=, no ras_simulator_slots, no resource manager's count). One rule, prte_set_slots, for every
// place a node is made: a daemon calling home with its topology (plm/base) and a simulated node
// made from a topology file (ras/simulator), so that a simulated DVM maps as the real one would.
#pragma once

#include <optional>
#include <string>

#include "runtime/node.h"

namespace prte::runtime {

// The parameter that names the policy, registered by plm/base (its default: cores).
inline constexpr const char* kSetSlotsParam = "prte_set_slots";
inline constexpr const char* kDefaultSlotPolicy = "cores";

// Why `value` is no slot policy (for prte_set_slots's validator), nullopt when it is one: a policy
// name (cores, hwthreads or pus, numas, packages or sockets) or a number of slots of at least 1.
// "4abc" or a misspelt name stops the program instead of meaning cores.
std::optional<std::string> check_slot_policy(const std::string& value);

// The slots `policy` (a value check_slot_policy accepts) gives a node of topology `t`: a number is
// used as it is; a name counts what it names, where "cores" counts hardware threads on hardware
// that shows no cores (hwloc on some virtual machines). At least 1, for a topology that counts none
// of what the policy names.
int slots_for(const std::string& policy, const NodeTopology& t);

}  // namespace prte::runtime
