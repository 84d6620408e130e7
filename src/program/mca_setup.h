// Bringing up the component system in a program: parameter sources, the core parameters, the
// component path, and the list of frameworks the runtime has. Program wiring (the top floor): it
// names every framework, so nothing below the programs includes it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mca/base/framework.h"
#include "util/status.h"

namespace prte::program {

// Every framework of the runtime, in the order they are opened.
const std::vector<mca::Framework*>& all_frameworks();
mca::Framework* find_framework(const std::string& name);

using MCASettings = std::vector<std::pair<std::string, std::string>>;

// Removes every "--prtemca <name> <value>" (and PRRTE's "--mca" spelling) from argv, returning
// the pairs in order. A flag without both words is an error naming it.
Status extract_mca_args(std::vector<std::string>& args, MCASettings& out);

// Loads the parameter sources (system file, user file, environment, then `command_line`),
// registers the core parameters, and scans the component path. Returns the first problem,
// a one-line message naming the parameter or file at fault.
Status setup_mca(char** envp, const MCASettings& command_line);

// Opens (and, unless role is info, selects) every framework; stops at the first error.
Status open_frameworks(const mca::QueryContext& context, bool select);

}  // namespace prte::program
