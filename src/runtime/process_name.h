// A process of the DVM by name: its job's namespace and its rank in the job. The runtime's own
// form of what PMIx calls a pmix_proc_t, for the floors below the PMIx host (grpcomm's collectives,
// the elastic bookkeeping), which name processes without speaking PMIx; the PMIx host converts at
// its boundary (pmix/proc_names.h).
#pragma once

#include <compare>
#include <cstddef>
#include <string>

#include "runtime/node.h"

namespace prte::runtime {

// Every rank of the job (PMIx's PMIX_RANK_WILDCARD, the same value).
inline constexpr Rank kWildcardRank = kInvalidRank - 1;
// The longest namespace a process can have (PMIx's PMIX_MAX_NSLEN, the same value).
inline constexpr size_t kMaxNspaceLength = 255;

struct ProcessName {
    std::string nspace;
    Rank rank = kInvalidRank;

    friend bool operator==(const ProcessName&, const ProcessName&) = default;
    friend auto operator<=>(const ProcessName&, const ProcessName&) = default;
};

}  // namespace prte::runtime
