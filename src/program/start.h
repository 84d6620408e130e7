// Starting a DVM's master or one of its daemons: program::init, then the parts each needs, in
// order, each part's stop registered with the runtime as it starts (Runtime::at_finalize runs them
// in reverse), so that Runtime::finalize() alone undoes exactly what started, on an error path as
// at the end. A returned Status names the part that could not start. Neither runs the loop: what
// only one program does (prte's log and registry, prted's handlers and its call home) stays in
// its main.
#pragma once

#include <functional>
#include <string>

#include "program/mca_setup.h"
#include "util/status.h"

namespace prte::program {

// The master: the PMIx server (with tool support, for prun and other tools), the settings'
// checks, the messenger for the daemons (rank 0, with a new DVM secret), the PMIx services that
// reach other nodes, the collectives, the campaign engine and the daemons' teardown at shutdown.
Status start_master(char** envp, const MCASettings& command_line);

struct DaemonStart {
    std::string master_uri;  // prted --dvm-uri
    std::string secret;      // read from prted's stdin
    // Runs once the runtime is up and before the PMIx server starts: prted's exit watchdog, which
    // must bound everything the daemon runs from then on.
    std::function<void()> before_servers;
};

// A daemon (its rank and DVM namespace already in Runtime::identity()): the PMIx server for its
// node's processes, the messenger to the master, the PMIx services that reach other nodes and the
// collectives.
Status start_daemon(char** envp, const MCASettings& command_line, const DaemonStart& start);

}  // namespace prte::program
