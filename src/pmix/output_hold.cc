// Holding a job's output until the tool that spawned it pulls it (pmix/attributes.h,
// kSpawnerPullsOutput). prun learns the job's namespace from the spawn answer, which comes once the
// processes run, and only then can ask for their output; what they wrote meanwhile waits here, in
// order, and is handed to PMIx when the pull request arrives. The job's end is notified only after
// that, so the end never overtakes the output. A spawner that never pulls (it died) does not keep
// a job's end waiting for ever: kHoldLimitSeconds after the end the output goes to PMIx regardless.
//
// Past kHoldLimitBytes the job's output is backlogged (output_flow.cc): its pipes are not read, on
// any node, until the spawner asks. Handing it to PMIx before then lost it: with no tool yet
// registered for it, PMIx kept only part, the tool never received the rest, so never acknowledged
// it, and the job stayed paused for ever (`prun -n 2 sh -c "head -c 5000000 /dev/zero" | wc -c`
// stopped at about 4 MB in one run of three).
//
// Progress thread only, except on_pull_request (PMIx's thread), which posts.
#include <pmix.h>
#include <pmix_server.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pmix/host_state.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "runtime/runtime.h"

namespace prte::pmix {
namespace {

using detail::verbose;

constexpr int kHoldLimitSeconds = 10;
// A spawner slow to pull does not make the DVM hold unbounded output: past this, the job's output
// waits in its pipes (backpressure) until the spawner asks.
constexpr size_t kHoldLimitBytes = 4u << 20;

using Chunk = detail::HostState::HeldChunk;
using Hold = detail::HostState::Hold;

bool over_limit(const Hold& hold) { return hold.bytes > kHoldLimitBytes; }

std::map<std::string, Hold>& holds() { return detail::host().holds.by_job; }

// The hold a job's output joins: its job tree's root's (its own for a root), if that is held.
// Asked after every chunk a launcher reads: nothing to look up while no job's output is held.
Hold* hold_of(const runtime::Job& job)
{
    if (holds().empty()) return nullptr;
    const runtime::JobTable& jobs = runtime::Runtime::instance().jobs();
    runtime::JobPtr self = jobs.find(job.nspace);
    runtime::JobPtr root = self ? jobs.root_of(self) : nullptr;
    auto it = holds().find(root ? root->nspace : job.nspace);
    return it == holds().end() ? nullptr : &it->second;
}

}  // namespace

namespace detail {

void hold_output(const std::string& nspace) { holds()[nspace]; }

bool hold_chunk(const std::string& held_as, const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel,
                const char* data, size_t size)
{
    auto it = holds().find(held_as);
    if (it == holds().end()) return false;
    it->second.chunks.push_back({job.nspace, rank, channel, std::string(data, size)});
    it->second.bytes += size;
    if (over_limit(it->second) && it->second.bytes - size <= kHoldLimitBytes) {
        verbose()(5, "output of job {}: more than {} byte(s) wait for its spawner; reading paused until it asks",
                  held_as, kHoldLimitBytes);
    }
    return true;
}

bool hold_backlogged(const runtime::Job& job)
{
    const Hold* hold = hold_of(job);
    return hold && over_limit(*hold);
}

bool wait_for_hold(const runtime::Job& job, std::function<void()> resume)
{
    Hold* hold = hold_of(job);
    if (!hold || !over_limit(*hold)) return false;
    hold->on_release.push_back(std::move(resume));
    return true;
}

void release_output(const std::string& nspace, const char* why)
{
    auto it = holds().find(nspace);
    if (it == holds().end()) return;
    Hold hold = std::move(it->second);
    holds().erase(it);
    hold.limit.cancel();
    verbose()(5, "output of job {} released ({}): {} held chunk(s)", nspace, why, hold.chunks.size());
    // A writer may have ended and left the job table since (a spawned job ends before its root):
    // its chunks go out all the same.
    for (const Chunk& c : hold.chunks) send_output(c.nspace, nspace, c.rank, c.channel, c.bytes.data(), c.bytes.size());
    for (auto& callback : hold.on_release) callback();
}

// PMIx records the tool's request before it tells us (we answer at once, and the held output
// reaches PMIx's thread after that).
void on_pull_request(const pmix_proc_t procs[], size_t nprocs)
{
    std::vector<std::string> names;
    for (size_t i = 0; i < nprocs; ++i) names.emplace_back(procs[i].nspace);
    post([names] {
        for (const std::string& ns : names) release_output(ns, "its spawner asked for it");
    });
}

void forget_hold(const std::string& nspace) { release_output(nspace, "the job is gone"); }

}  // namespace detail

void when_output_released(const runtime::JobPtr& job, std::function<void()> then)
{
    auto it = holds().find(job->nspace);
    if (it == holds().end()) {
        then();
        return;
    }
    Hold& hold = it->second;
    hold.on_release.push_back(std::move(then));
    if (hold.limit.armed()) return;
    // Releasing erases the hold, this timer with it, from inside its callback: LoopTimer allows it.
    hold.limit = runtime::LoopTimer(runtime::Runtime::instance().loop(), [nspace = job->nspace] {
        detail::release_output(nspace, "its spawner never asked for it");
    });
    hold.limit.arm(std::chrono::seconds(kHoldLimitSeconds));
}

}  // namespace prte::pmix
