// Why this file: the job's output must reach prun's stdout and stderr whole, and all of it before
// prun exits, while the DVM holds back no more of it than prun has taken. This receives it from
// PMIx into the OutputWriter (or leaves it to the PMIx library, for a DVM that cannot serve pull
// requests), acknowledges it for the DVM's flow control, and at the job's end waits for the last.
//
// Output is complete when prun exits: the DVM sends a job's last output before its
// PMIX_EVENT_JOB_END (both travel on the same connection, in order), and after the event prun
// deregisters its output request and waits for the answer, a round trip that can only come back
// after everything the DVM sent before it.
#pragma once

#include <pmix_tool.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/dvm_registry.h"
#include "tools/prun/job_events.h"
#include "tools/prun/output_writer.h"
#include "util/output.h"

namespace prte::prun {

// How the job's output reaches us. Our own handler (PMIx_IOF_pull) formats --output as PRRTE does
// and tells us when stdout is gone; it needs the DVM to support IOF pull requests. Otherwise the
// PMIx library writes the output itself, formatted by the attributes we pass with the spawn.
enum class OutputPath { pull, library };

// One per prun: PMIx gives an output handler no argument of ours, so output reaches the relay
// that exists.
class OutputRelay {
  public:
    OutputRelay(OutputWriter& writer, JobEvents& events, const output::VerboseStream& trace);
    ~OutputRelay();
    OutputRelay(const OutputRelay&) = delete;
    OutputRelay& operator=(const OutputRelay&) = delete;

    // Asks the DVM whether it serves IOF pull requests, with a request that matches no output.
    // `self`: our own process, whose namespace serves when the DVM's is unknown.
    void choose_path(const runtime::dvm_registry::Entry& dvm, const pmix_proc_t& self);
    OutputPath path() const { return path_; }

    // The job is `nspace` (`job_id` in messages): on the pull path, asks for its output.
    void start(const std::string& nspace, const std::string& job_id);
    // The DVM marks the end of the job's output; PMIx may deliver the end event before the last
    // chunks, so wait for the marker (a DVM that sends none costs us the limit, once).
    void wait_for_end_marker(std::chrono::milliseconds limit);
    // Waits for the round trip that comes back after everything the DVM sent before it.
    void wait_for_the_rest(std::chrono::milliseconds limit);
    // Output that still arrives is dropped from now on.
    void stop_writing() { writer_ = nullptr; }

  private:
    static void on_output(size_t ref, pmix_iof_channel_t channel, pmix_proc_t* source, pmix_byte_object_t* payload,
                          pmix_info_t* info, size_t ninfo);
    void receive(pmix_iof_channel_t channel, const pmix_proc_t* source, const pmix_byte_object_t* payload,
                 const pmix_info_t* info, size_t ninfo);
    // Output flow control (pmix/attributes.h): acknowledge every kAckEvery bytes received.
    void acknowledge(const char* nspace, size_t bytes);
    void wait_for_barrier(std::chrono::milliseconds limit);

    OutputWriter* writer_;
    JobEvents& events_;
    const output::VerboseStream& trace_;
    OutputPath path_ = OutputPath::pull;
    std::string nspace_;
    std::string job_id_;
    std::optional<size_t> pull_ref_;
    uint64_t received_bytes_ = 0;  // PMIx's thread only
    uint64_t acked_bytes_ = 0;
};

}  // namespace prte::prun
