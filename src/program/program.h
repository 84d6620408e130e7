// Bringing up the runtime of a program that runs one (prte, prted): the one place that joins the
// floors. It reads the parameters and hands the runtime their values, installs the PMIx host's
// services for the components, opens the frameworks and selects those the program needs. The
// runtime, rml and the frameworks below never reach up here (docs/architecture.md, "Floors").
#pragma once

#include "program/mca_setup.h"
#include "util/process_role.h"
#include "util/status.h"

namespace prte::program {

// Reads the parameter sources (`command_line` last), registers the core parameters, scans the
// component path; loads this node's topology (runtime/topology.h: from hwloc_use_topo_file when
// set, else discovered); initialises the Runtime with its settings; installs the PMIx host services;
// opens every framework and selects those `role` cannot run without; starts the launcher's
// SIGCHLD watch and fills the state machine's tables. Does not start the progress thread.
// Whatever it returns, Runtime::finalize() undoes what was done (frameworks close there).
Status init(util::ProcessRole role, char** envp, const MCASettings& command_line);

}  // namespace prte::program
