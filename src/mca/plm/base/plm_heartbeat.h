// The master's side of the heartbeat (prte_daemon_heartbeat_timeout; rml/heartbeat.h): it watches
// its own children in the routing tree and hears from every other parent about theirs (tag
// daemon_silent). A daemon silent for the timeout is declared lost - one line naming it, its node
// and how long it was silent - and then handled exactly as a crash of that daemon (errmgr's
// daemon_lost: in elastic mode the DVM carries on without it, otherwise the DVM ends as PRRTE's
// does). The master also tells the daemon (tag declared_lost) and closes its connections to it, so
// that it ends itself and its processes if it ever runs again (prted/heartbeat.cc).
#pragma once

#include <chrono>

#include "runtime/node.h"

namespace prte::plm::base {

// Starts the heartbeat when prte_daemon_heartbeat_timeout is on. Once the messenger runs.
void start_master_heartbeat();

// Declares daemon `rank` lost after `silent` without a word, as seen by daemon `observer` (this
// master, or the daemon's parent). Ignored for a daemon already gone and while the DVM stops.
void declare_silent_daemon_lost(runtime::Rank rank, std::chrono::milliseconds silent, runtime::Rank observer);

}  // namespace prte::plm::base
