// Job and process state numbers. Names and values are those of the job-launch state machine
// specification (spec: job-launch-state-machine.txt, 7.4.2 and 7.4.4), plus
// WAITING_FOR_DAEMONS for jobs that wait to be admitted (spec: elastic-dvm-spec.txt,
// "Observability"; why each waits is its Job::waiting, runtime/job.h). Tools and logs print these
// numbers, so they never change.
#pragma once

#include <cstdint>

namespace prte::runtime {

enum class JobState : int32_t {
    undef = 0,
    init = 1,
    init_complete = 2,
    allocate = 3,
    allocation_complete = 4,
    map = 5,
    map_complete = 6,
    system_prep = 7,
    launch_daemons = 8,
    daemons_launched = 9,
    daemons_reported = 10,
    vm_ready = 11,
    launch_apps = 12,
    send_launch_msg = 13,
    running = 14,
    suspended = 15,
    registered = 16,
    // A passive marker: the job waits to be admitted, for one of the reasons of
    // runtime::WaitReason (the launch fence at the map or launch boundary, the autoscaler's turn
    // or nodes, the test hold, the queue); only what holds it moves it on. No callback is
    // registered for it.
    waiting_for_daemons = 17,
    local_launch_complete = 18,
    ready_for_debug = 19,
    started = 20,

    unterminated = 30,  // boundary: below this the job is still alive
    terminated = 31,
    all_jobs_complete = 32,
    daemons_terminated = 33,
    notify_completed = 34,
    notified = 35,

    error = 50,  // boundary: at or above this the job ended abnormally
    killed_by_cmd = 51,
    aborted = 52,
    failed_to_start = 53,
    aborted_by_sig = 54,
    aborted_wo_sync = 55,
    comm_failed = 56,
    sensor_bound_exceeded = 57,
    called_abort = 58,
    heartbeat_failed = 59,
    never_launched = 60,
    abort_ordered = 61,
    non_zero_term = 62,
    failed_to_launch = 63,
    forced_exit = 64,
    silent_abort = 65,
    report_progress = 66,
    alloc_failed = 68,
    map_failed = 69,
    cannot_launch = 70,
};

enum class ProcState : int32_t {
    undef = 0,
    init = 1,
    restart = 2,
    terminate = 3,
    running = 4,
    registered = 5,
    iof_complete = 6,
    waitpid_fired = 7,
    modex_ready = 8,
    ready_for_debug = 9,

    unterminated = 15,  // boundary: below this the process is still alive
    terminated = 20,
    killed_by_cmd = 21,

    error = 50,  // boundary: at or above this the process ended abnormally
    aborted = 52,
    failed_to_start = 53,
    aborted_by_sig = 54,
    term_wo_sync = 55,
    comm_failed = 56,
    sensor_bound_exceeded = 57,
    called_abort = 58,
    heartbeat_failed = 59,
    migrating = 60,
    cannot_restart = 61,
    term_non_zero = 62,
    failed_to_launch = 63,
    unable_to_send_msg = 64,
    lifeline_lost = 65,
    no_path_to_target = 66,
    failed_to_connect = 67,
    peer_unknown = 68,
};

// "PRTE_JOB_STATE_VM_READY"-style names, as verbose output and the spec print them.
const char* to_string(JobState state);
const char* to_string(ProcState state);

inline bool is_alive(JobState s) { return static_cast<int32_t>(s) < static_cast<int32_t>(JobState::unterminated); }
inline bool is_error(JobState s) { return static_cast<int32_t>(s) >= static_cast<int32_t>(JobState::error); }
inline bool is_alive(ProcState s) { return static_cast<int32_t>(s) < static_cast<int32_t>(ProcState::unterminated); }
inline bool is_error(ProcState s) { return static_cast<int32_t>(s) >= static_cast<int32_t>(ProcState::error); }

}  // namespace prte::runtime
