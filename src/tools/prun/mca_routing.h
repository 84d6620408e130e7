// Where a parameter named with prun's --mca goes. Open MPI, PMIx and prte each read their own
// environment prefix (OMPI_MCA_, PMIX_MCA_, PRTE_MCA_), and a user who types mpirun's
// `--mca btl self` means Open MPI's btl, which Open MPI only reads as OMPI_MCA_btl. As PRRTE's ompi
// personality does, the name's prefix says whose it is (docs/user-guide.md, "Parameters for the
// job's processes", lists the prefixes and where the shared ones go).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace prte::prun {

// --personality: ompi (the default) routes --mca names by prefix; prte gives them all to prte (a
// PMIx framework's to PMIx), as before there was routing.
enum class Personality { ompi, prte };

struct McaOwners {
    bool open_mpi = false;
    bool pmix = false;
    bool prte = false;
    bool none() const { return !open_mpi && !pmix && !prte; }
};

// Whose parameter `name` is. `ompi_prefixes` is OMPI_MCA_PREFIXES's value (null when unset): a
// comma-separated list of prefixes that replaces the built-in list of Open MPI 4.1's projects and
// frameworks, for an Open MPI whose frameworks we do not know.
McaOwners mca_owners(std::string_view name, Personality personality, const char* ompi_prefixes);

// One parameter as it reaches a process: the environment variable and its value.
using McaSetting = std::pair<std::string, std::string>;

// -am FILE: Open MPI's aggregate parameter file, one "name = value" per line ('#' starts a
// comment). --tune FILE: PRRTE's, words of "-mca|--mca NAME VALUE" and "-x NAME[=VALUE]".
// Each adds to `mca` (name, value) and `exports` (-x words); an error names the file and line.
Status read_param_file(const std::string& path, std::vector<McaSetting>& mca);
Status read_tune_file(const std::string& path, std::vector<McaSetting>& mca, std::vector<std::string>& exports);

}  // namespace prte::prun
