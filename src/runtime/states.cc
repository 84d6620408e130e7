#include "runtime/states.h"

namespace prte::runtime {

const char* to_string(JobState state)
{
    switch (state) {
    case JobState::undef: return "PRTE_JOB_STATE_UNDEF";
    case JobState::init: return "PRTE_JOB_STATE_INIT";
    case JobState::init_complete: return "PRTE_JOB_STATE_INIT_COMPLETE";
    case JobState::allocate: return "PRTE_JOB_STATE_ALLOCATE";
    case JobState::allocation_complete: return "PRTE_JOB_STATE_ALLOCATION_COMPLETE";
    case JobState::map: return "PRTE_JOB_STATE_MAP";
    case JobState::map_complete: return "PRTE_JOB_STATE_MAP_COMPLETE";
    case JobState::system_prep: return "PRTE_JOB_STATE_SYSTEM_PREP";
    case JobState::launch_daemons: return "PRTE_JOB_STATE_LAUNCH_DAEMONS";
    case JobState::daemons_launched: return "PRTE_JOB_STATE_DAEMONS_LAUNCHED";
    case JobState::daemons_reported: return "PRTE_JOB_STATE_DAEMONS_REPORTED";
    case JobState::vm_ready: return "PRTE_JOB_STATE_VM_READY";
    case JobState::launch_apps: return "PRTE_JOB_STATE_LAUNCH_APPS";
    case JobState::send_launch_msg: return "PRTE_JOB_STATE_SEND_LAUNCH_MSG";
    case JobState::running: return "PRTE_JOB_STATE_RUNNING";
    case JobState::suspended: return "PRTE_JOB_STATE_SUSPENDED";
    case JobState::registered: return "PRTE_JOB_STATE_REGISTERED";
    case JobState::waiting_for_daemons: return "PRTE_JOB_STATE_WAITING_FOR_DAEMONS";
    case JobState::local_launch_complete: return "PRTE_JOB_STATE_LOCAL_LAUNCH_COMPLETE";
    case JobState::ready_for_debug: return "PRTE_JOB_STATE_READY_FOR_DEBUG";
    case JobState::started: return "PRTE_JOB_STATE_STARTED";
    case JobState::unterminated: return "PRTE_JOB_STATE_UNTERMINATED";
    case JobState::terminated: return "PRTE_JOB_STATE_TERMINATED";
    case JobState::all_jobs_complete: return "PRTE_JOB_STATE_ALL_JOBS_COMPLETE";
    case JobState::daemons_terminated: return "PRTE_JOB_STATE_DAEMONS_TERMINATED";
    case JobState::notify_completed: return "PRTE_JOB_STATE_NOTIFY_COMPLETED";
    case JobState::notified: return "PRTE_JOB_STATE_NOTIFIED";
    case JobState::error: return "PRTE_JOB_STATE_ERROR";
    case JobState::killed_by_cmd: return "PRTE_JOB_STATE_KILLED_BY_CMD";
    case JobState::aborted: return "PRTE_JOB_STATE_ABORTED";
    case JobState::failed_to_start: return "PRTE_JOB_STATE_FAILED_TO_START";
    case JobState::aborted_by_sig: return "PRTE_JOB_STATE_ABORTED_BY_SIG";
    case JobState::aborted_wo_sync: return "PRTE_JOB_STATE_ABORTED_WO_SYNC";
    case JobState::comm_failed: return "PRTE_JOB_STATE_COMM_FAILED";
    case JobState::sensor_bound_exceeded: return "PRTE_JOB_STATE_SENSOR_BOUND_EXCEEDED";
    case JobState::called_abort: return "PRTE_JOB_STATE_CALLED_ABORT";
    case JobState::heartbeat_failed: return "PRTE_JOB_STATE_HEARTBEAT_FAILED";
    case JobState::never_launched: return "PRTE_JOB_STATE_NEVER_LAUNCHED";
    case JobState::abort_ordered: return "PRTE_JOB_STATE_ABORT_ORDERED";
    case JobState::non_zero_term: return "PRTE_JOB_STATE_NON_ZERO_TERM";
    case JobState::failed_to_launch: return "PRTE_JOB_STATE_FAILED_TO_LAUNCH";
    case JobState::forced_exit: return "PRTE_JOB_STATE_FORCED_EXIT";
    case JobState::silent_abort: return "PRTE_JOB_STATE_SILENT_ABORT";
    case JobState::report_progress: return "PRTE_JOB_STATE_REPORT_PROGRESS";
    case JobState::alloc_failed: return "PRTE_JOB_STATE_ALLOC_FAILED";
    case JobState::map_failed: return "PRTE_JOB_STATE_MAP_FAILED";
    case JobState::cannot_launch: return "PRTE_JOB_STATE_CANNOT_LAUNCH";
    }
    return "PRTE_JOB_STATE_UNKNOWN";
}

const char* to_string(ProcState state)
{
    switch (state) {
    case ProcState::undef: return "PRTE_PROC_STATE_UNDEF";
    case ProcState::init: return "PRTE_PROC_STATE_INIT";
    case ProcState::restart: return "PRTE_PROC_STATE_RESTART";
    case ProcState::terminate: return "PRTE_PROC_STATE_TERMINATE";
    case ProcState::running: return "PRTE_PROC_STATE_RUNNING";
    case ProcState::registered: return "PRTE_PROC_STATE_REGISTERED";
    case ProcState::iof_complete: return "PRTE_PROC_STATE_IOF_COMPLETE";
    case ProcState::waitpid_fired: return "PRTE_PROC_STATE_WAITPID_FIRED";
    case ProcState::modex_ready: return "PRTE_PROC_STATE_MODEX_READY";
    case ProcState::ready_for_debug: return "PRTE_PROC_STATE_READY_FOR_DEBUG";
    case ProcState::unterminated: return "PRTE_PROC_STATE_UNTERMINATED";
    case ProcState::terminated: return "PRTE_PROC_STATE_TERMINATED";
    case ProcState::killed_by_cmd: return "PRTE_PROC_STATE_KILLED_BY_CMD";
    case ProcState::error: return "PRTE_PROC_STATE_ERROR";
    case ProcState::aborted: return "PRTE_PROC_STATE_ABORTED";
    case ProcState::failed_to_start: return "PRTE_PROC_STATE_FAILED_TO_START";
    case ProcState::aborted_by_sig: return "PRTE_PROC_STATE_ABORTED_BY_SIG";
    case ProcState::term_wo_sync: return "PRTE_PROC_STATE_TERM_WO_SYNC";
    case ProcState::comm_failed: return "PRTE_PROC_STATE_COMM_FAILED";
    case ProcState::sensor_bound_exceeded: return "PRTE_PROC_STATE_SENSOR_BOUND_EXCEEDED";
    case ProcState::called_abort: return "PRTE_PROC_STATE_CALLED_ABORT";
    case ProcState::heartbeat_failed: return "PRTE_PROC_STATE_HEARTBEAT_FAILED";
    case ProcState::migrating: return "PRTE_PROC_STATE_MIGRATING";
    case ProcState::cannot_restart: return "PRTE_PROC_STATE_CANNOT_RESTART";
    case ProcState::term_non_zero: return "PRTE_PROC_STATE_TERM_NON_ZERO";
    case ProcState::failed_to_launch: return "PRTE_PROC_STATE_FAILED_TO_LAUNCH";
    case ProcState::unable_to_send_msg: return "PRTE_PROC_STATE_UNABLE_TO_SEND_MSG";
    case ProcState::lifeline_lost: return "PRTE_PROC_STATE_LIFELINE_LOST";
    case ProcState::no_path_to_target: return "PRTE_PROC_STATE_NO_PATH_TO_TARGET";
    case ProcState::failed_to_connect: return "PRTE_PROC_STATE_FAILED_TO_CONNECT";
    case ProcState::peer_unknown: return "PRTE_PROC_STATE_PEER_UNKNOWN";
    }
    return "PRTE_PROC_STATE_UNKNOWN";
}

}  // namespace prte::runtime
