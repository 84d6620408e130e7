// Why this file: `prun --app FILE` (Open MPI's and PRRTE's appfile) runs one app context per line
// of FILE, each line written as on the command line ("-n 2 ./a.out arg"). Reading the file into
// words is all this does; prun_options joins the lines with ':' as an MPMD command line.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace prte::prun {

// The contexts of `path`: the words of each line that is neither empty nor a comment ('#'),
// split at blanks, with '...' and "..." quoting. An error names the file (and line).
Status read_appfile(const std::string& path, std::vector<std::vector<std::string>>& contexts);

}  // namespace prte::prun
