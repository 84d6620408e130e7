// The GRPCOMM (group communication) framework: collectives among daemons.
//
// Single-select. xcast sends a message from the master to every daemon down the routing tree,
// reliably: acknowledgements flow back up, so the master knows when the whole DVM has it.
// Every tag is forwarded before it is processed except rml::tag::wireup and
// rml::tag::daemon_died, which are processed first (spec: collective-shrink-completion.txt,
// "Leaving mode rides in the shrink command" — the shrink order must stay forward-first).
// allgather collects a contribution from every daemon hosting participants and returns the
// combined data to all of them. Participants are processes by name (runtime::ProcessName): the
// PMIx host's fences, connects and groups, and the PMI server's barriers, run over it; what a
// collective means to PMIx is theirs, grpcomm knows daemons, processes and collectives.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "rml/types.h"
#include "runtime/process_name.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::grpcomm {

// 2: job_released(), so a module can forget what it kept about a finished job.
// 3: Signature::assign_context_id and the context id handed to AllgatherCallback (PMIx groups).
// 4: Signature::time_limit (a PMIx caller's PMIX_TIMEOUT).
// 5: participant_ended() (a process that ended before it took part fails the collectives over it).
// 6: AllgatherCallback names that process (PMIx groups tell the survivors who it was).
// 7: cancel() (a PMIx group construct a member aborted with PMIX_GROUP_CONSTRUCT_ABORT).
// 8: Signature::optional and the processes AllgatherCallback says were left out (PMIX_GROUP_OPTIONAL).
// 9: Signature::watch_normal_ends, watches() and process_left() (a group member that leaves normally).
// 10: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 11: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// 12: processes named by runtime::ProcessName instead of PMIx's pmix_proc_t (issue 30).
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
// 13: end_everywhere() (a PMIx group operation timed out on a node whose part never started).
inline constexpr uint32_t kInterfaceVersion = 13;

// Fired on the master only, once every daemon has received the op, or with an error when it
// cannot be delivered. Runs on the progress thread.
using XcastCompletion = std::function<void(const Status&)>;

// Identifies one allgather: the participating processes (a rank of kWildcardRank names every
// process of its job) and an id that tells apart concurrent collectives over the same processes
// (a PMIx fence, connect and group construct over them). With assign_context_id (any participant
// may ask), the master issues a context id as it releases the result: one counter for the DVM's
// life, so an id is never issued twice (PMIx groups take it as their context id).
// With a time_limit, a collective still incomplete that long after this daemon contributed fails
// on every participating daemon with Errc::timed_out (a caller's PMIX_TIMEOUT: a process that never
// calls). With `optional`, a participating process that ends before it took part, or is lost with
// its node, is left out instead of failing the collective: the daemons hosting nothing but such
// processes are no longer waited for, and the result says who was left out (the master decides, so
// every daemon hears the same list; PMIX_GROUP_OPTIONAL is built on it).
struct Signature {
    std::vector<runtime::ProcessName> procs;
    std::string id;
    bool assign_context_id = false;
    std::chrono::milliseconds time_limit{0};
    bool optional = false;
    // The daemons hosting its processes watch it: one of their processes that ends normally before
    // it took part is then taken for one that ended (participant_ended) instead of being waited for
    // (a PMIx group member that leaves without joining). A normal end is told nowhere otherwise.
    bool watch_normal_ends = false;
};

// Fired on each participating daemon with the combined data and the context id (0 when none was
// asked for), or with an error when a daemon hosting participants left before the collective
// completed (the fence then fails rather than waiting for data that will never come), when a
// participant's time limit passed, or when a participating process ended before it took part
// (Errc::peer_ended, with `ended` naming it; nullptr otherwise). It may run before allgather()
// returns, when the collective had failed before this daemon's caller called. `left_out`: on the
// success of an optional collective, the participating processes that ended before they took part.
using AllgatherCallback = std::function<void(const Status&, const rml::Payload& combined, uint64_t context_id,
                                             const runtime::ProcessName* ended,
                                             const std::vector<runtime::ProcessName>& left_out)>;

class Module : public mca::Module {
  public:
    ~Module() override;

    virtual Status init() = 0;

    virtual Status xcast(rml::Tag tag, const rml::Payload& message, XcastCompletion on_complete = {}) = 0;

    virtual Status allgather(const Signature& signature, const rml::Payload& contribution,
                             AllgatherCallback on_complete) = 0;

    // The job has ended and its procs are gone on every node (the master's cleanup state and each
    // daemon's cleanup command call it): drop its collective counters and any collective still
    // waiting on it, so a DVM that runs jobs for months does not grow.
    virtual void job_released(const std::string& nspace) noexcept = 0;

    // A process of this node ended abnormally (killed, or exited non-zero), or ended normally
    // while a group operation on this node waited for it. Every collective over it that it never
    // took part in fails on every participating daemon with Errc::peer_ended,
    // those under way and those that start later (until its job is released): in a job that
    // carries on after a failure (prun --enable-recovery), or a group spanning jobs, the others
    // would otherwise wait for it for ever. Collectives it took part in complete; an optional one
    // (Signature::optional) leaves it out instead of failing. Progress thread.
    virtual void participant_ended(const runtime::ProcessName& proc) noexcept = 0;
    // A process of this node ended normally. Told like participant_ended() when a collective under
    // way that asked for it (Signature::watch_normal_ends) names it and it has not taken part;
    // watches() says whether that is so. Progress thread.
    virtual bool watches(const runtime::ProcessName&) noexcept { return false; }
    virtual void process_left(const runtime::ProcessName&) noexcept {}
    // This daemon's part of the collective over `signature` ends with `why` (Errc::cancelled): the
    // one under way here fails through its callback. Unless `started_here` (this daemon's part was
    // handed over, so a collective no longer under way has completed), when none is under way the
    // next one is counted as started and failed, so that this daemon's sequence numbers stay those
    // of the daemons that had started it. Local only: every participating daemon learns of the
    // cancellation itself (a PMIx event reaches them all) and cancels its own part. Progress thread.
    virtual void cancel(const Signature& signature, const Status& why, bool started_here) noexcept = 0;
    // The collective over `signature` that this daemon is at (the one under way here, or else the
    // next) fails with `why` on every participating daemon, as when a time limit passes: this
    // daemon's callers had their time run out before its part could start (PMIx 4.2.2 had not
    // handed it over), so the others must not go on waiting for it, nor take a caller's later end
    // for one that never took part. Progress thread.
    virtual void end_everywhere(const Signature& signature, const Status& why) noexcept = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::grpcomm
