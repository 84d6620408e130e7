// prte's command line beyond the DVM's own basics: PRRTE's prte options that name where daemons
// come from (--prefix, --launch-agent), which nodes (--machinefile, --default-hostfile,
// --max-vm-size), how it runs (--set-sid, --keepalive, --no-ready-msg, --system-server, -v), and
// the DVM-wide job defaults (--timeout, -x, --runtime-options, --display; runtime/job_defaults.h).
// Each becomes a parameter, an environment variable or a job default before the DVM starts.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "program/mca_setup.h"
#include "runtime/job_defaults.h"
#include "util/status.h"

namespace prte::tools {

struct PrteOptions {
    bool daemonize = false;
    std::string report_uri;
    std::string report_pid;
    std::vector<std::string> hosts;
    std::string hostfile;        // --hostfile, --machinefile
    std::string default_hostfile;
    std::string log_file;
    bool debug_daemons_file = false;
    bool version = false;
    bool verbose = false;        // -v, --verbose, --debug
    bool no_ready_msg = false;
    bool system_server = false;
    bool set_sid = false;
    int keepalive_fd = -1;
    int max_vm_size = 0;         // 0: every node given
    std::string prefix;
    bool noprefix = false;
    std::string launch_agent;
    std::string tmpdir;
    std::vector<std::string> pmix_mca;  // name value pairs, flattened
    std::vector<std::string> tune;
    std::string forward_signals;
    std::string exec_agent;  // refused: see finish_prte_options
    std::string singleton;   // refused
    // The DVM-wide job defaults, as given (read by finish_prte_options).
    std::string timeout;
    std::vector<std::string> exports;
    std::vector<std::string> runtime_options;
    std::vector<std::string> display;
    bool accepted_flag = false;  // the flags accepted without effect (see add_prte_options)
    std::string accepted_value;  // --pmix-prefix's
    // One line each, printed as "prte: note: ..." (an option accepted that changes nothing here).
    std::vector<std::string> notes;
};

// Adds every option to `app`.
void add_prte_options(CLI::App& app, PrteOptions& options);

// After parsing: checks the values, turns them into DVM parameters (`mca`), environment
// variables of prte itself (PMIX_MCA_..., TMPDIR) and job defaults. An error is one line naming
// the option.
Status finish_prte_options(PrteOptions& options, char** envp, program::MCASettings& mca,
                           runtime::JobDefaults& defaults);

}  // namespace prte::tools
