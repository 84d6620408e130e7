// A daemon's command handler: what it does with the messages the master sends (wireup, launch,
// kill, cleanup, exit, daemons that died). All on the progress thread.
#pragma once

namespace prte::prted {

// Registers the handlers with the messenger and routes this node's output to the master.
void install_handlers();

// The daemon's orderly exit: kill every local process, and stop the loop once all are reaped.
void begin_shutdown();

}  // namespace prte::prted
