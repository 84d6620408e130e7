// Slurm's compressed per-node counts, as in SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE:
// comma-separated entries, each a count or "count(xN)" for N nodes in a row, so "2(x3),1" is
// 2, 2, 2, 1 (one count per node of SLURM_JOB_NODELIST, in its order).
#pragma once

#include <string_view>
#include <vector>

#include "util/status.h"

namespace prte::ras::slurm {

// Appends one count per node to `out`. On error `out` is unchanged and the Status (bad_param)
// quotes the text and says what is wrong in it.
Status expand_counts(std::string_view text, std::vector<int>& out);

}  // namespace prte::ras::slurm
