// Why this file: what a job's processes find in their environment is said on prun's command line
// by six options, applied in the order given (PRRTE's rule): -x NAME, -x NAME=value and -x PREFIX*
// (from prun's environment), --set-env NAME=value, --unset-env NAME (or NAME*), --prepend-env and
// --append-env NAME[c] value (c the separator), and --fwd-environment (all of prun's). Reading
// them, and resolving them against prun's environment into what the DVM is sent, is done here.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace prte::prun {

// One of those options as given.
struct EnvOption {
    enum Kind { export_var, set, unset, prepend, append, forward_all } kind = export_var;
    std::string name;   // export_var: NAME, NAME=value or PREFIX*; unset: NAME or NAME*
    std::string value;  // set, prepend, append
    char separator = ':';  // prepend, append
};

// Reads `option`'s words (one, or two for --prepend-env / --append-env); an error names the
// option and what it expected.
Status read_env_option(const std::string& option, const std::vector<std::string>& words, EnvOption& out);

// What the DVM is sent for one app, in order: a variable set to a value, or an edit of what the
// process's node has (unset, prepend, append).
struct EnvSetting {
    enum Kind { set, unset, prepend, append } kind = set;
    std::string name;
    std::string value;
    char separator = ':';
};

// Resolves `options` against prun's environment (`environment`, "NAME=value" entries): -x NAME
// takes its value here (an error when it is not set), -x PREFIX* every variable starting with
// PREFIX (a note when there is none), --fwd-environment every variable but those that describe
// prun's own process to PMIx, Open MPI or prte (PMIX_*, OMPI_COMM_WORLD_*, PRTE_* but their _MCA_
// settings), which would mislead the job's.
Status resolve_environment(const std::vector<EnvOption>& options, const std::vector<std::string>& environment,
                           std::vector<EnvSetting>& out, std::vector<std::string>& notes);

// prun's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

}  // namespace prte::prun
