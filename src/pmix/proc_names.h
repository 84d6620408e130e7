// The PMIx host's boundary for process names: the floors below name a process by
// runtime::ProcessName (runtime/process_name.h), PMIx by pmix_proc_t. The host converts where it
// hands one to the other (grpcomm's collectives, collectives.cc and process_ended.cc).
#pragma once

#include <pmix_common.h>

#include <cstring>
#include <vector>

#include "runtime/process_name.h"

namespace prte::pmix {

static_assert(runtime::kWildcardRank == PMIX_RANK_WILDCARD, "runtime::kWildcardRank is PMIx's wildcard rank");
static_assert(runtime::kInvalidRank == PMIX_RANK_UNDEF, "runtime::kInvalidRank is PMIx's undefined rank");
static_assert(runtime::kMaxNspaceLength == PMIX_MAX_NSLEN, "runtime::kMaxNspaceLength is PMIx's");

inline runtime::ProcessName to_process_name(const pmix_proc_t& proc)
{
    return {std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN)), proc.rank};
}

inline pmix_proc_t to_pmix_proc(const runtime::ProcessName& name)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, name.nspace.c_str(), name.rank);
    return proc;
}

inline std::vector<runtime::ProcessName> to_process_names(const std::vector<pmix_proc_t>& procs)
{
    std::vector<runtime::ProcessName> out;
    out.reserve(procs.size());
    for (const pmix_proc_t& p : procs) out.push_back(to_process_name(p));
    return out;
}

inline std::vector<pmix_proc_t> to_pmix_procs(const std::vector<runtime::ProcessName>& names)
{
    std::vector<pmix_proc_t> out;
    out.reserve(names.size());
    for (const runtime::ProcessName& n : names) out.push_back(to_pmix_proc(n));
    return out;
}

}  // namespace prte::pmix
