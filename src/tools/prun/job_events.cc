#include "tools/prun/job_events.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "tools/prun/tool_connection.h"

namespace prte::prun {

namespace {

// The JobEvents that subscribed (PMIx passes an event handler nothing of ours). Atomic: set and
// cleared on prun's main thread, read by the event handler on PMIx's thread.
std::atomic<JobEvents*> subscriber{nullptr};

JobEvents& events_of(void* cbdata) { return *static_cast<JobEvents*>(cbdata); }

void on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    JobEvents* events = subscriber.load();
    if (events) {
        {
            std::lock_guard<std::mutex> lock(events->mutex);
            if (status == PMIX_EVENT_JOB_END) {
                JobEnd end;
                end.status = tools::info_status(info, ninfo, PMIX_JOB_TERM_STATUS).value_or(PMIX_SUCCESS);
                end.exit_code = tools::info_integer(info, ninfo, PMIX_EXIT_CODE);
                end.message = tools::info_string(info, ninfo, PMIX_EVENT_TEXT_MESSAGE);
                std::string ns = tools::affected_nspace(info, ninfo);
                events->ended[ns] = end;
            } else {
                events->connection_lost = true;
            }
        }
        (void)source;
        events->wake();
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

}  // namespace

JobEvents::~JobEvents()
{
    JobEvents* self = this;
    subscriber.compare_exchange_strong(self, nullptr);
}

Status JobEvents::open_wake_pipe()
{
    if (pipe2(wake_fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
        return {Errc::internal, fmt::format("cannot create a pipe: {}", std::strerror(errno))};
    }
    return {};
}

void JobEvents::wake()
{
    if (wake_fds_[1] < 0) return;
    char c = 1;
    ssize_t ignored = write(wake_fds_[1], &c, 1);
    (void)ignored;
}

void JobEvents::drain()
{
    char drain[64];
    while (read(wake_fds_[0], drain, sizeof(drain)) > 0) {
    }
}

void JobEvents::wait_for_wake()
{
    struct pollfd p = {wake_fds_[0], POLLIN, 0};
    poll(&p, 1, -1);
    drain();
}

pmix_status_t JobEvents::subscribe()
{
    subscriber = this;
    pmix_status_t codes[] = {PMIX_EVENT_JOB_END, PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    tools::InfoList info;
    info.add_string(PMIX_EVENT_HDLR_NAME, "prun");
    return PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), info.data(), info.size(), on_event,
                                       nullptr, nullptr);
}

void on_spawned(pmix_status_t status, char nspace[], void* cbdata)
{
    JobEvents& events = events_of(cbdata);
    {
        std::lock_guard<std::mutex> lock(events.mutex);
        events.spawn_replied = true;
        events.spawn_status = status;
        if (nspace) events.nspace = nspace;
    }
    events.wake();
}

void on_kill_replied(pmix_status_t status, pmix_info_t*, size_t, void* cbdata, pmix_release_cbfunc_t release_fn,
                     void* release_cbdata)
{
    JobEvents& events = events_of(cbdata);
    {
        std::lock_guard<std::mutex> lock(events.mutex);
        events.kill_replied = true;
        events.kill_status = status;
    }
    if (release_fn) release_fn(release_cbdata);
    events.wake();
}

void on_signal_replied(pmix_status_t status, pmix_info_t*, size_t, void* cbdata, pmix_release_cbfunc_t release_fn,
                       void* release_cbdata)
{
    auto* forwarded = static_cast<SignalForwarded*>(cbdata);
    JobEvents& events = *forwarded->events;
    if (status != PMIX_SUCCESS) {
        std::lock_guard<std::mutex> lock(events.mutex);
        events.signals_refused.emplace_back(forwarded->signal, status);
    }
    delete forwarded;
    if (release_fn) release_fn(release_cbdata);
    if (status != PMIX_SUCCESS) events.wake();
}

void on_barrier(pmix_status_t, void* cbdata)
{
    JobEvents& events = events_of(cbdata);
    {
        std::lock_guard<std::mutex> lock(events.mutex);
        events.barrier_done = true;
    }
    events.wake();
}

void on_query_barrier(pmix_status_t, pmix_info_t*, size_t, void* cbdata, pmix_release_cbfunc_t release_fn,
                      void* release_cbdata)
{
    if (release_fn) release_fn(release_cbdata);
    on_barrier(PMIX_SUCCESS, cbdata);
}

void on_pushed(pmix_status_t status, void* cbdata)
{
    JobEvents& events = events_of(cbdata);
    {
        std::lock_guard<std::mutex> lock(events.mutex);
        events.push_pending = false;
        events.push_status = status;
    }
    events.wake();
}

}  // namespace prte::prun
