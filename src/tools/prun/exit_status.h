// Why this file: prun's exit status stands for the job's, so scripts can treat "prun prog" like
// "prog": the job's own code, 127 for no such program and 126 for one that cannot be executed, as
// a shell would; and whatever went wrong is told in one line. These rules, apart from the run.
#pragma once

#include <pmix_tool.h>

#include <string>

#include "tools/prun/job_events.h"
#include "tools/prun/prun_options.h"

namespace prte::prun {

// A job its --timeout or --spawn-timeout ended: ETIMEDOUT, the status mpirun 4.1 exits with, which
// scripts written for it test (the DVM ends such a job with this status too).
inline constexpr int kTimedOutExit = 110;

// Whether `status` says the job could not be started (no program, no resources, ...).
bool is_launch_failure(pmix_status_t status);
// Why the job could not start, for "cannot start <program>: <reason>".
std::string launch_failure_reason(pmix_status_t status);
// 127 no such program, 126 not executable, 1 otherwise.
int launch_failure_exit(pmix_status_t status);
// prun's exit status for a job that ended so: its first non-zero exit code (1..255), or non-zero
// when a process was killed or the job failed.
int exit_status_of(const JobEnd& end);
// `text` as one line: trailing newlines and spaces dropped, inner newlines shown as "; ".
std::string one_line(std::string text);
// The programs of the request, for messages ("a, b").
std::string commands_of(const Request& request);

}  // namespace prte::prun
