// PMIx attributes of our own, shared by the DVM and its tools. PMIx passes unknown keys through
// to the host, so an older DVM simply ignores them.
#pragma once

namespace prte::pmix {

// (bool) Spawn directive from a tool that will PMIx_IOF_pull the job's output as soon as the spawn
// answer names the job: the DVM holds the output until that pull arrives. Without it, output a
// process writes before the tool's pull reaches PMIx's own cache, which in PMIx 4.2 loses chunks
// and hands back the rest with a corrupted source rank.
inline constexpr const char kSpawnerPullsOutput[] = "prte.iof.pull";

}  // namespace prte::pmix
