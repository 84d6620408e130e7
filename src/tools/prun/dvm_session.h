// Why this file: prun reaches its DVM only as a PMIx tool, and from the moment it connects it must
// hear of the job's end and of the DVM's loss, or it would wait for ever. This connects (with the
// signals kept from PMIx's threads), subscribes to those events, and names the DVM in messages.
#pragma once

#include <pmix_tool.h>

#include <string>

#include "runtime/dvm_registry.h"
#include "tools/prun/job_events.h"
#include "tools/prun/tool_connection.h"
#include "util/output.h"
#include "util/status.h"

namespace prte::prun {

class DvmSession {
  public:
    DvmSession(JobEvents& events, const output::VerboseStream& trace) : events_(events), trace_(trace) {}

    // Optional, before connect(): see ToolConnection::start_unconnected.
    Status start_early();
    // Connects to `dvm` and subscribes `events` to its job ends and to its loss.
    Status connect(const runtime::dvm_registry::Entry& dvm);

    const runtime::dvm_registry::Entry& dvm() const { return dvm_; }
    const pmix_proc_t& self() const { return connection_.self(); }
    // "the DVM (pid N)", or "the DVM" when its pid is unknown.
    std::string text() const;

  private:
    JobEvents& events_;
    const output::VerboseStream& trace_;
    runtime::dvm_registry::Entry dvm_;
    tools::ToolConnection connection_;
};

// PMIx_tool_finalize talks to the DVM; a DVM that no longer answers must not keep us from exiting:
// exits with `status` in a few seconds whatever is still running.
void exit_soon_in_any_case(int status);

}  // namespace prte::prun
