// Why this file: PMIx calls prun back on threads of its own, while prun's main thread waits in
// poll() for the job, its stdin and signals at once. So every callback only records what PMIx
// said, here, under one mutex, and wakes the main thread through a pipe; the main thread alone acts
// on it. The callbacks below take the JobEvents as their cbdata.
#pragma once

#include <poll.h>
#include <pmix_tool.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace prte::prun {

struct JobEnd {
    pmix_status_t status = PMIX_SUCCESS;
    std::optional<int64_t> exit_code;
    std::string message;
};

class JobEvents {
  public:
    JobEvents() = default;
    ~JobEvents();
    JobEvents(const JobEvents&) = delete;
    JobEvents& operator=(const JobEvents&) = delete;

    // The pipe that wakes the main thread. It is never closed: a signal handler may write to it
    // until prun has exited (signals::wake_through).
    Status open_wake_pipe();
    int wake_fd() const { return wake_fds_[0]; }  // readable when something was recorded
    int wake_write_fd() const { return wake_fds_[1]; }
    void wake();
    // Reads away what woke us.
    void drain();
    // Waits, however long it takes, until something wakes us.
    void wait_for_wake();

    // Subscribes to job ends and to the loss of the DVM (PMIx_Register_event_handler); what
    // PMIx_Register_event_handler returned. PMIx gives an event handler no argument of ours, so
    // events reach the JobEvents that subscribed last.
    pmix_status_t subscribe();

    // Waits, woken by the PMIx callbacks, until `done` holds under the lock or the connection is
    // lost; false if `limit` passed first.
    template <typename Done>
    bool wait_until(std::chrono::milliseconds limit, Done done)
    {
        auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                if (done() || connection_lost) return true;
            }
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                              std::chrono::steady_clock::now())
                            .count();
            struct pollfd p = {wake_fds_[0], POLLIN, 0};
            poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 1)));
            drain();
        }
        return false;
    }

    // What PMIx reported; read and written under `mutex`.
    std::mutex mutex;
    bool spawn_replied = false;
    pmix_status_t spawn_status = PMIX_SUCCESS;
    std::string nspace;
    std::map<std::string, JobEnd> ended;  // by namespace: an end may arrive before the spawn reply
    bool connection_lost = false;
    bool kill_replied = false;
    pmix_status_t kill_status = PMIX_SUCCESS;
    // Forwarded signals the DVM did not deliver (signal, why), until the main loop reports them.
    std::vector<std::pair<int, pmix_status_t>> signals_refused;
    bool barrier_done = false;
    bool push_pending = false;
    pmix_status_t push_status = PMIX_SUCCESS;
    std::set<std::string> output_complete;  // namespaces whose last output has arrived

  private:
    int wake_fds_[2] = {-1, -1};
};

// PMIx callbacks that record into the JobEvents passed as their cbdata.
void on_spawned(pmix_status_t status, char nspace[], void* events);  // PMIx_Spawn_nb
void on_kill_replied(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* events,
                     pmix_release_cbfunc_t release_fn, void* release_cbdata);  // PMIx_Job_control_nb
// A forwarded signal's answer: cbdata is a `new SignalForwarded`, which the callback deletes.
struct SignalForwarded {
    JobEvents* events;
    int signal;
};
void on_signal_replied(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* forwarded,
                       pmix_release_cbfunc_t release_fn, void* release_cbdata);  // PMIx_Job_control_nb
void on_barrier(pmix_status_t status, void* events);  // an answer that only says "all before me arrived"
void on_query_barrier(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* events,
                      pmix_release_cbfunc_t release_fn, void* release_cbdata);  // the same, to a query
void on_pushed(pmix_status_t status, void* events);  // PMIx_IOF_push

}  // namespace prte::prun
