#include "runtime/host_services.h"

namespace prte::runtime {

std::string HostServices::first_missing() const
{
    const std::pair<bool, const char*> services[] = {
        {static_cast<bool>(register_job), "register_job"},
        {static_cast<bool>(setup_fork), "setup_fork"},
        {static_cast<bool>(deregister_job), "deregister_job"},
        {static_cast<bool>(deliver_output), "deliver_output"},
        {static_cast<bool>(deliver_remote_output), "deliver_remote_output"},
        {static_cast<bool>(output_backlogged), "output_backlogged"},
        {static_cast<bool>(when_output_drains), "when_output_drains"},
        {static_cast<bool>(deliver_output_complete), "deliver_output_complete"},
        {static_cast<bool>(when_output_released), "when_output_released"},
        {static_cast<bool>(process_ended), "process_ended"},
        {static_cast<bool>(job_killing), "job_killing"},
        {static_cast<bool>(notify_job_end), "notify_job_end"},
        {static_cast<bool>(notify_job_start), "notify_job_start"},
        {static_cast<bool>(notify_proc_failure), "notify_proc_failure"},
        {static_cast<bool>(notify_allocation_outcome), "notify_allocation_outcome"},
        {static_cast<bool>(daemons_lost), "daemons_lost"},
        {static_cast<bool>(spawn), "spawn"},
        {static_cast<bool>(names), "names"},
    };
    for (const auto& [set, name] : services) {
        if (!set) return name;
    }
    return {};
}

}  // namespace prte::runtime
