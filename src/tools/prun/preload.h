// prun --preload-binary and --preload-files: prun reads the program and the files where it runs,
// and they travel with the spawn request (pmix::kPreloadFile) to the daemons that run the app's
// processes, which write them before they fork them (odls/base/odls_base_preload.h): the program
// into the job's session directory on each node, run from there; each file into the process's
// working directory, under its name relative to prun's working directory (an absolute one under
// its base name, as PRRTE places it).
#pragma once

#include "tools/prun/prun_options.h"
#include "util/status.h"

namespace prte::prun {

// Fills each app's `preloads` from its preload_binary and preload_files. The program is found as
// the DVM would look for it here (a name with a '/' as it is, else in PATH). A one-line error names
// the file that cannot be read or named, or the total over runtime::kMaxPreloadBytes.
Status read_preloads(Request& request);

}  // namespace prte::prun
