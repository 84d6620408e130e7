// Why this file: before prun touches a DVM it must know whether there is a job to run at all. A
// usage error, --help and --version end prun here, with the exit status a shell expects (2, 0, 0),
// and the notes about older spellings are printed once, before any output of the job.
#pragma once

#include <optional>
#include <string>

#include "tools/prun/prun_options.h"

namespace prte::prun {

// Fills `request` from argv; the status to exit with when prun has nothing more to do.
std::optional<int> read_command_line(int argc, char** argv, Request& request);

// --report-pid WHERE: prun's pid to "-" (stdout), "+" (stderr) or the file WHERE (written anew),
// before it looks for the DVM, so that a script can signal it while it waits. Empty: nothing.
Status report_pid(const std::string& where);

}  // namespace prte::prun
