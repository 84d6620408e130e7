// The PMIx host as the components see it: runtime::HostServices filled with this folder's
// functions (server.h). Components never include pmix/: the program installs this table.
#include "pmix/server.h"

namespace prte::pmix {

runtime::HostServices host_services()
{
    runtime::HostServices h;
    h.register_job = [](const runtime::JobPtr& job, std::function<void(const Status&)> done) {
        register_job(job, std::move(done));
    };
    h.setup_fork = setup_fork;
    h.deregister_job = deregister_job;
    h.deliver_output = deliver_output;
    h.deliver_remote_output = deliver_remote_output;
    h.output_backlogged = output_backlogged;
    h.when_output_drains = when_output_drains;
    h.deliver_output_complete = deliver_output_complete;
    h.when_output_released = when_output_released;
    h.process_ended = process_ended;
    h.job_killing = job_killing;
    h.notify_job_end = notify_job_end;
    h.notify_job_start = notify_job_start;
    h.notify_proc_failure = notify_proc_failure;
    h.notify_allocation_outcome = notify_allocation_outcome;
    h.daemons_lost = daemons_lost;
    h.spawn = spawn_for_process;
    h.names = serve_names;
    return h;
}

}  // namespace prte::pmix
