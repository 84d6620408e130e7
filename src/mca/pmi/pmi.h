// The PMI framework: serves the PMI-1 and PMI-2 "simple" wire protocols that MPICH and the MPIs
// derived from it speak to their launcher, so that such a program under prun runs as one job.
//
// Single-select, on every daemon (the master too). A process of a job that asked for PMI
// (runtime::MpiInterface: automatic, pmi1, pmi2) gets, besides whatever else the launcher gives
// it, one end of a socket pair as PMI_FD with PMI_RANK and PMI_SIZE; the module serves the
// other end. What the processes put is exchanged between the daemons at each barrier (kvs-fence)
// through the GRPCOMM allgather, so a job over many nodes is one job. A bad command, an abort,
// or a process that initialised PMI and exits without finalizing it ends the job the way an
// aborted job ends (the proc state machine), with a message naming the rank and the command.
// A PMI-1 spawn (MPI_Comm_spawn) starts a child job through the host's spawn service
// (runtime::HostServices::spawn), as a PMIx spawn from that process would.
// A site that wants none of this leaves the framework without a component (--prtemca pmi ^simple
// or the file removed): processes then get PMIx only.
// Threading: everything on the progress thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "runtime/job_table.h"
#include "runtime/types_fingerprint.h"  // PRTE_MCA_COMPONENT stamps each component with it
#include "util/status.h"

namespace prte::pmi {

// 2: runtime::Job's placement policy and Proc (cpuset), and runtime::Node (hw, pu_load), grew (issue 25).
// 3: runtime::AppContext (map_by, an MPMD app's own --map-by) and runtime::JobReports (topology) grew.
// Changes only with this framework's own interface (its Module's virtual functions and the types
// this header declares): a change of the runtime types is caught by runtime::kTypesFingerprint,
// which the component repository checks for every component (runtime/types_fingerprint.h).
inline constexpr uint32_t kInterfaceVersion = 3;

// What one process is given to reach its PMI server. The child inherits `child_fd` (the launcher
// keeps it open across exec in the child, then closes its own copy once the child is forked).
struct Endpoint {
    int child_fd = -1;
    std::vector<std::string> env;  // NAME=value: PMI_FD, PMI_RANK, PMI_SIZE, ...
};

class Module : public mca::Module {
  public:
    ~Module() override;

    // Prepares local process `rank` of the job (called before it is forked, for every local rank
    // of a launch before any of them can speak). The job's `mpi` says which wire protocol versions
    // the process may use.
    virtual Status prepare(const runtime::JobPtr& job, runtime::Rank rank, Endpoint& out) = 0;

    // The process was reaped (`exited_normally`: exit status 0), or could not be started. One that
    // initialised PMI, did not finalize it and exited normally fails its job; its connection is
    // forgotten, and the job's with its last local process.
    virtual void process_ended(const runtime::JobPtr& job, runtime::Rank rank, bool exited_normally) = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::pmi
