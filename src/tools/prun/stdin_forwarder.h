// Why this file: the job reads prun's stdin (PRRTE's default: rank 0 does), so prun must feed it
// one chunk at a time as the DVM takes them, never read a terminal it does not own (SIGTTIN would
// stop it in the background), and not leave before the DVM has answered the last push.
#pragma once

#include <pmix_tool.h>

#include <chrono>
#include <string>
#include <vector>

#include "tools/prun/job_events.h"
#include "tools/prun/prun_options.h"
#include "util/output.h"

namespace prte::prun {

class StdinForwarder {
  public:
    StdinForwarder(JobEvents& events, const output::VerboseStream& trace) : events_(events), trace_(trace) {}
    StdinForwarder(const StdinForwarder&) = delete;
    StdinForwarder& operator=(const StdinForwarder&) = delete;

    // Decided before the spawn: the DVM gives the stdin target a pipe only if we will feed it.
    void decide(const StdinTarget& target);
    bool forwarding() const { return forwarding_; }
    // A push failed: forward nothing more.
    void stop() { forwarding_ = false; }

    // The job is `nspace`: from now on input goes to `target` in it.
    void start(const std::string& nspace, const StdinTarget& target);
    // Whether stdin should be read when it is readable (and the last push has been answered).
    bool wants_input() const { return forwarding_ && !done_; }
    // Reads one chunk of stdin and pushes it; an empty push marks the end of input.
    void forward_chunk();
    // PMIx answers a push (a chunk of stdin, or its end) on our connection once the DVM has taken
    // it. Leaving before that answer made the DVM's PMIx print "PMIX ERROR: UNREACHABLE ... line
    // 3098" on the DVM's stderr (a one-shot prterun with stdin at its end at once, about 1 run in 60).
    void wait_for_push_answer(std::chrono::milliseconds limit);

  private:
    JobEvents& events_;
    const output::VerboseStream& trace_;
    bool forwarding_ = false;
    bool done_ = false;
    std::vector<char> buffer_;
    pmix_byte_object_t chunk_{};
    pmix_proc_t target_{};
};

}  // namespace prte::prun
