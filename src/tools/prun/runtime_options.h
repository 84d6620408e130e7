// Why this file: PRRTE's --runtime-options (--rtos) LIST says how the job behaves at run time, in
// words of its own (error-nonzero-status, recoverable, autorestart...), each abbreviable to a
// unique prefix and taking =value. Each becomes what prun already has (a field of the Request, a
// --map-by qualifier), or is refused naming why and what to use; none is silently ignored.
#pragma once

#include <string>

#include "tools/prun/prun_options.h"
#include "util/status.h"

namespace prte::prun {

// Applies one --runtime-options value (a comma list) to `request`; `map_by` is the context's
// --map-by, which donotlaunch qualifies. An error names the word and what to do.
Status apply_runtime_options(const std::string& value, Request& request, std::string& map_by);

// Once every context is read: how failed processes are restarted. --max-restarts N (or
// max-restarts=N) restarts each up to N times; --continuous without a limit; autorestart needs
// one of them, autorestart=false turns restarts off. An error says what to add.
Status finish_restarts(Request& request);

// The words --runtime-options knows, for --help.
const char* runtime_option_words();

}  // namespace prte::prun
