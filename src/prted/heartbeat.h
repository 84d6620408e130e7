// A daemon's side of the heartbeat (prte_daemon_heartbeat_timeout; rml/heartbeat.h): it beats to
// its parent, reports a silent child to the master, and ends itself when the master says it was
// declared lost.
#pragma once

namespace prte::prted {

// Once the messenger runs; does nothing when the heartbeat is off.
void start_heartbeat();

}  // namespace prte::prted
