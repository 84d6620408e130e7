// Whether PMIx 4.2.2 would file a fence's collected data under the wrong processes (see the .cc):
// then the DVM withholds the data and the direct modex answers instead. Progress thread.
#pragma once

#include <pmix_common.h>

#include <vector>

namespace prte::pmix::detail {

bool fence_data_misfiled_by_pmix422(const std::vector<pmix_proc_t>& procs);

}  // namespace prte::pmix::detail
