// A PMIx spawn request (PMIx_Spawn's apps and job info) as a runtime job: the pure translation,
// with no server and no runtime around it, so it can be tested on its own.
//
// Apps: cmd, argv (argv[0] included; [cmd] when empty), env ("NAME=value"), cwd, maxprocs (0: one
// per slot), and per app PMIX_HOST, PMIX_HOSTFILE, PMIX_ADD_HOST, PMIX_ADD_HOSTFILE, PMIX_WDIR,
// PMIX_SET_ENVAR.
// Job info: PMIX_MAPBY ("<policy>[:<modifier>...]", ppr as "ppr:N:<object>"), PMIX_RANKBY,
// PMIX_BINDTO, PMIX_PPR, PMIX_NO_OVERSUBSCRIBE, PMIX_TIMEOUT / PMIX_JOB_TIMEOUT (seconds),
// PMIX_SPAWN_TIMEOUT (seconds), PMIX_TIMEOUT_REPORT_STATE, PMIX_TIMEOUT_STACKTRACES,
// PMIX_IOF_TAG_OUTPUT / PMIX_TAG_OUTPUT, PMIX_IOF_TIMESTAMP_OUTPUT / PMIX_TIMESTAMP_OUTPUT,
// PMIX_IOF_MERGE_STDERR_STDOUT / PMIX_MERGE_STDERR_STDOUT, and PMIX_HOST, PMIX_HOSTFILE,
// PMIX_ADD_HOST, PMIX_ADD_HOSTFILE, PMIX_SET_ENVAR for every app that does not say otherwise, and
// PMIX_STDIN_TGT ("all", "none", a rank) / PMIX_FWD_STDIN (rank 0) for job.stdin_target;
// PMIX_DISPLAY_MAP, PMIX_DISPLAY_ALLOCATION and PMIX_REPORT_BINDINGS for job.reports.
// PMIX_FWD_STDOUT/STDERR/STDDIAG are taken by the PMIx library itself (it sets up the tool's
// output), and the markers PMIx adds (PMIX_REQUESTOR_IS_TOOL/CLIENT) need nothing: both are
// accepted silently. Anything else is ignored with a note saying so; a known directive with a
// value we cannot honour (a mapping policy we do not know) is an error naming it.
#pragma once

#include <pmix_common.h>

#include <string>
#include <vector>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::pmix {

// Fills job.apps, job.mapping, job.output, job.stdin_target, job.timeout_seconds (and the timeout
// diagnostics), job.spawn_timeout_seconds and job.recoverable from the request. `notes`
// receives one line per directive that was ignored, for the verbose stream.
Status translate_spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps,
                       runtime::Job& job, std::vector<std::string>& notes);

// The job-level directives translate_spawn honours, comma-separated (PMIX_QUERY_SPAWN_SUPPORT).
std::string supported_spawn_directives();

}  // namespace prte::pmix
