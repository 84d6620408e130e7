// The DVM-wide job defaults prte's command line sets (prte --timeout, -x, --runtime-options,
// --display, as PRRTE's prte has them): applied by the master to every job submitted to it, under
// whatever the job asks for itself - a job's own timeout, reports and variables win.
#pragma once

#include <string>
#include <vector>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::runtime {

struct JobDefaults {
    int timeout_seconds = 0;         // --timeout / --runtime-options timeout=N; 0: none
    int spawn_timeout_seconds = 0;   // --runtime-options spawn-timeout=N
    bool timeout_report_state = false;  // --runtime-options report-state-on-timeout
    bool timeout_stack_traces = false;  // --runtime-options get-stack-traces
    bool recoverable = false;        // --runtime-options recoverable
    // --runtime-options autorestart,max-restarts=N / continuous (as prun's, Job::max_restarts):
    // for a job that asks for no restarts of its own. 0: none; -1: without limit (continuous).
    int max_restarts = 0;
    bool continuous = false;
    std::vector<std::string> env;    // -x: NAME=value, added to every process's environment
    JobReports reports;              // --display map,allocation,bind,topo,cpus
};

// A job without a timeout of its own takes the DVM's, and so on; the DVM's variables come before
// the job's own (so that a job's own setting of the same name wins); reports add up.
void apply_job_defaults(const JobDefaults& defaults, Job& job);

// prte --runtime-options words (comma-separated, each NAME or NAME=VALUE): those that are job
// defaults here. A word that is a job's own (prun's) or not known is an error naming it.
Status parse_runtime_defaults(const std::string& list, JobDefaults& out);

// prte --display words: map, allocation, bind, topo, cpus (and map-devel, read as map). Others are an
// error naming the word.
Status parse_display_defaults(const std::string& list, JobDefaults& out);

// prte -x NAME, NAME=value or PREFIX*: the variables from prte's environment (for NAME and
// PREFIX*) or as given. A NAME not set in prte's environment is an error naming it.
Status add_exported_variable(const std::string& word, char** envp, JobDefaults& out);

}  // namespace prte::runtime
