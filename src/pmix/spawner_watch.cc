// A prun killed outright (SIGKILL, the OOM killer) cannot end its job, and PMIx 4.2.2 never tells
// the host that a tool left, so the job ran on for ever. prun says its pid and host in the spawn
// (pmix/attributes.h); when it runs on the master's host, the master watches that pid with a
// pidfd on the progress loop, and when the process is gone ends the jobs it started that are
// still running and lets go of their output held for it. A prun that ends normally has ended its
// job first: nothing is left to do then.
#include <event2/event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "mca/plm/base/plm_launch.h"
#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {
namespace {

using Watch = HostState::SpawnerWatch;

// By spawner pid (host_state.h). Progress thread.
std::map<pid_t, Watch>& watches() { return host().spawner_watches.by_pid; }

std::string this_host()
{
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

void spawner_gone(pid_t pid)
{
    auto it = watches().find(pid);
    if (it == watches().end()) return;
    Watch w = std::move(it->second);
    watches().erase(it);
    event_free(w.ev);
    ::close(w.fd);
    auto& rt = runtime::Runtime::instance();
    for (const std::string& nspace : w.jobs) {
        runtime::JobPtr job = rt.jobs().find(nspace);
        if (job && runtime::is_alive(job->state) && !job->aborting) {
            verbose()(1, "job {}: its launcher (pid {}) exited without ending it; ending the job", nspace, pid);
            plm::base::terminate_job(job,
                                     fmt::format("job {} was ended: the prun that launched it (pid {}) is gone", nspace, pid),
                                     runtime::JobState::killed_by_cmd, 1);
        }
        // Its output waited for this prun to ask for it, and the job's end (with its slots) waited
        // on the output: nobody will ask now (a prun killed between its spawn and its pull).
        release_output(nspace, "its spawner is gone");
    }
}

}  // namespace

void watch_spawner(const runtime::Job& job)
{
    if (job.spawner_pid <= 0 || job.spawner_host != this_host()) return;
    auto it = watches().find(job.spawner_pid);
    if (it == watches().end()) {
        int fd = static_cast<int>(::syscall(SYS_pidfd_open, job.spawner_pid, 0));
        if (fd < 0) {
            verbose()(2, "job {}: cannot watch its launcher (pid {}): {}", job.nspace, job.spawner_pid, std::strerror(errno));
            return;
        }
        Watch w;
        w.fd = fd;
        // Not persistent, and freed from a posted task rather than inside its own callback.
        w.ev = event_new(
            runtime::Runtime::instance().loop().base(), fd, EV_READ,
            [](evutil_socket_t, short, void* arg) {
                pid_t pid = static_cast<pid_t>(reinterpret_cast<intptr_t>(arg));
                runtime::Runtime::instance().loop().post([pid] { spawner_gone(pid); });
            },
            reinterpret_cast<void*>(static_cast<intptr_t>(job.spawner_pid)));
        event_add(w.ev, nullptr);
        it = watches().emplace(job.spawner_pid, std::move(w)).first;
    }
    it->second.jobs.insert(job.nspace);
}

// The host's state goes (pmix::stop()): the watches' events and pidfds with it.
HostState::SpawnerWatches::~SpawnerWatches()
{
    for (auto& [pid, w] : by_pid) {
        event_free(w.ev);
        ::close(w.fd);
    }
}

}  // namespace prte::pmix::detail
