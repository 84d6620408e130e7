// Output flow control (server.h, attributes.h). Two limits keep the DVM's memory bounded while a
// job writes faster than its output is taken away:
//  - bytes handed to PMIx that PMIx has not released yet (all jobs together);
//  - for a job whose spawner acknowledges what it receives (prun), bytes sent but unacknowledged:
//    PMIx releases a chunk once it is queued for the tool's socket, so only the tool's own
//    acknowledgement bounds what waits in PMIx's send queue.
//  - on a daemon, bytes forwarded to the master but not taken by it yet (output_relay.cc);
//  - on the master, a job's output held until its spawner asks for it (output_hold.cc).
// The launcher asks output_backlogged(job) after each chunk and stops reading that job's pipes
// until its when_output_drains callback runs.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pmix/ack_window.h"
#include "pmix/host_state.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "runtime/job.h"

namespace prte::pmix {
namespace {

using detail::verbose;

constexpr size_t kPmixHighWater = 8u << 20;
constexpr size_t kPmixLowWater = 1u << 20;
constexpr uint64_t kWindow = 8u << 20;      // unacknowledged bytes before a job is paused
constexpr uint64_t kResumeBelow = 4u << 20;  // ... and when it goes on

// Bytes in PMIx's hands (changed on the progress thread and on PMIx's: release), and per job,
// for spawners that acknowledge, its window (progress thread only): host_state.h.
detail::HostState::Flow& flow() { return detail::host().flow; }
std::map<std::string, detail::AckWindow>& flows() { return flow().windows; }

bool job_backlogged(const std::string& nspace)
{
    auto it = flows().find(nspace);
    return it != flows().end() && it->second.backlogged();
}

bool pmix_backlogged()
{
    std::lock_guard<std::mutex> lock(flow().in_pmix_lock);
    return flow().in_pmix > kPmixHighWater;
}

}  // namespace

namespace detail {

void track_acks(const std::string& nspace) { flows().try_emplace(nspace, kWindow, kResumeBelow); }

void count_sent(const std::string& nspace, size_t bytes)
{
    auto it = flows().find(nspace);
    if (it != flows().end()) it->second.sent(bytes);
}

void handed_to_pmix(size_t bytes)
{
    std::lock_guard<std::mutex> lock(flow().in_pmix_lock);
    flow().in_pmix += bytes;
}

void released_by_pmix(size_t bytes)
{
    std::vector<std::function<void()>> wake;
    {
        HostState::Flow& f = flow();
        std::lock_guard<std::mutex> lock(f.in_pmix_lock);
        f.in_pmix -= bytes;
        if (f.in_pmix < kPmixLowWater) wake.swap(f.pmix_waiters);
    }
    for (auto& resume : wake) post(std::move(resume));
}

void output_acked(const std::string& nspace, uint64_t total)
{
    auto it = flows().find(nspace);
    if (it == flows().end()) return;
    if (it->second.acknowledge(total)) {
        verbose()(10, "output of job {}: {} byte(s) acknowledged, resuming", nspace, it->second.acked());
    }
}

void forget_flow(const std::string& nspace)
{
    forget_relay(nspace);
    auto it = flows().find(nspace);
    if (it == flows().end()) return;
    detail::AckWindow flow = std::move(it->second);
    flows().erase(it);
    flow.release();
}

}  // namespace detail

bool output_backlogged(const runtime::Job& job)
{
    return job_backlogged(job.nspace) || pmix_backlogged() || detail::relay_backlogged(job.nspace) ||
           detail::hold_backlogged(job);
}

void when_output_drains(const runtime::Job& job, std::function<void()> resume)
{
    if (detail::wait_for_relay(job.nspace, resume)) return;
    if (detail::wait_for_hold(job, resume)) return;
    if (job_backlogged(job.nspace)) {
        verbose()(10, "output of job {}: more than {} byte(s) unacknowledged, pausing", job.nspace, kWindow);
        flows().find(job.nspace)->second.wait(std::move(resume));
        return;
    }
    {
        std::lock_guard<std::mutex> lock(flow().in_pmix_lock);
        if (flow().in_pmix >= kPmixLowWater) {
            flow().pmix_waiters.push_back(std::move(resume));
            return;
        }
    }
    resume();
}

}  // namespace prte::pmix
