// Why this file: one job's life as prun sees it, in the order that keeps its output complete and
// the DVM tidy: connect, spawn, then wait for its end while serving stdin, ^C, the signals it
// forwards to the job, a reader that went away and --timeout, and finally turn the end into prun's exit status. The parts it drives each
// live in a file of their own; this is the only place that knows their order.
#pragma once

#include <string>

#include "runtime/dvm_registry.h"
#include "tools/prun/dvm_session.h"
#include "tools/prun/job_events.h"
#include "tools/prun/output_relay.h"
#include "tools/prun/output_writer.h"
#include "tools/prun/prun_options.h"
#include "tools/prun/stdin_forwarder.h"
#include "util/output.h"
#include "util/status.h"

namespace prte::prun {

class Run {
  public:
    // `events` must have its wake pipe open.
    Run(const Request& request, JobEvents& events, const output::VerboseStream& trace);
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    // Optional, before execute(): see ToolConnection::start_unconnected.
    Status start_pmix_early();
    // Runs the job in `dvm`; prun's exit status.
    int execute(const runtime::dvm_registry::Entry& dvm);

  private:
    int run_job(const runtime::dvm_registry::Entry& dvm);
    Status spawn();
    void start_output_and_input();
    void loop();
    int finish();
    void kill_job(const char* why);
    void forward_signals();
    std::string job_id() const { return job_label_of(nspace_); }

    const Request& request_;
    JobEvents& events_;
    const output::VerboseStream& trace_;
    OutputWriter writer_;
    OutputRelay output_;
    StdinForwarder stdin_;
    // Last, so that it is finalized first, while what PMIx's threads report to still exists.
    DvmSession dvm_;
    std::string nspace_;
    bool kill_sent_ = false;
    bool stdout_gone_ = false;
    bool timed_out_by_us_ = false;
    int interrupt_seen_ = 0;
    bool stdout_is_pipe_ = false;
};

}  // namespace prte::prun
