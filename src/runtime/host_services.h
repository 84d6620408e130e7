// What the frameworks' components may ask of the PMIx server host, injected as plain functions.
//
// The host (src/pmix/) sits above the frameworks: it calls into plm, odls and grpcomm. A component
// that included pmix/server.h to reach back up would close a loop between floors, so the program's
// wiring (src/program/) fills this table with the host's functions and installs it in the Runtime
// before any component is selected; components call rt.host().<service>. Unit tests install fakes.
// Every entry must be set by the wiring: an empty one is a wiring bug, caught by check_complete().
// Each runs on the progress thread unless it says otherwise.
#pragma once

#include <pmix_common.h>

#include <functional>
#include <string>
#include <vector>

#include "runtime/job_table.h"
#include "util/status.h"

namespace prte::runtime {

// The outcome of a size change, for its requester (spec: elastic-dvm-spec.txt, "Asynchronous
// size-change completion"): PMIX_DVM_IS_READY or PMIX_ERR_DVM_MOD, directed to the requester on
// whatever node it runs.
struct AllocationOutcome {
    pmix_proc_t requester{};
    Rank requester_daemon = 0;
    std::string alloc_id;
    std::string req_id;
    bool success = true;
    pmix_status_t cause = PMIX_SUCCESS;  // with a failure
    std::string message;                 // with a failure
};

// What a PMI process asks of the DVM's name service (MPICH's MPI_Publish_name, _Lookup_name and
// _Unpublish_name): one service name and, to publish, its port.
enum class NameOp { publish, lookup, unpublish };

struct HostServices {
    // Launch: the job's namespace registered with this node's PMIx server (done runs posted, with
    // the outcome), and the environment one child needs to connect to it (any thread).
    std::function<void(const JobPtr& job, std::function<void(const Status&)> done)> register_job;
    std::function<Status(const JobPtr& job, Rank rank, std::vector<std::string>& env)> setup_fork;
    // The job has ended here: its namespace is forgotten.
    std::function<void(const JobPtr& job)> deregister_job;

    // Output: a chunk of a local process's output (an empty chunk ends that stream; rank
    // PMIX_RANK_UNDEF is the DVM's own report on the job), and on the master a chunk a daemon
    // forwarded. Flow control: output_backlogged() while too much waits, when_output_drains() runs
    // its callback once it has drained.
    std::function<void(const Job& job, Rank rank, pmix_iof_channel_t channel, const char* data, size_t size)>
        deliver_output;
    std::function<void(const Job& job, Rank daemon, pmix_iof_channel_t channel, Rank rank, const char* data,
                       size_t size)>
        deliver_remote_output;
    std::function<bool(const Job& job)> output_backlogged;
    std::function<void(const Job& job, std::function<void()> resume)> when_output_drains;
    // The end of a job's output: marked, and `then` once it is no longer held for its spawner.
    std::function<void(const Job& job)> deliver_output_complete;
    std::function<void(const JobPtr& job, std::function<void()> then)> when_output_released;

    // Processes: one was reaped (`abnormally` when killed or exiting non-zero); the job's local
    // processes are about to be signalled.
    std::function<void(const Job& job, Rank rank, bool abnormally)> process_ended;
    std::function<void(const Job& job)> job_killing;

    // Events: a job's end to its spawner, a process's abnormal end to those registered for `code`,
    // a size change's outcome to its requester.
    std::function<void(const JobPtr& job)> notify_job_end;
    // Every process of the job has started: to whoever registered for the job events.
    std::function<void(const JobPtr& job)> notify_job_start;
    std::function<void(const Job& job, const Proc& proc, pmix_status_t code, const std::string& message)>
        notify_proc_failure;
    std::function<void(const AllocationOutcome& outcome)> notify_allocation_outcome;

    // Jobs: a job spawned on behalf of process `requester` as its PMIx_Spawn would be (relayed
    // to the master from a daemon; a child of the requester's job): a PMI spawn (MPICH's
    // MPI_Comm_spawn). `done` runs once, on the progress thread, with the new job's namespace or
    // why it was not started.
    std::function<void(const pmix_proc_t& requester, const std::vector<AppContext>& apps,
                       std::function<void(const Status& status, const std::string& nspace)> done)>
        spawn;
    // Names: a PMI process publishes, looks up or unpublishes `service` in the DVM's one store, the
    // one PMIx_Publish and PMIx_Lookup use (so MPICH and Open MPI programs find each other's names;
    // relayed to the master from a daemon). `done` runs once, on the progress thread, with
    // PMIX_SUCCESS and (for a lookup) the port, or the error.
    std::function<void(const pmix_proc_t& requester, NameOp op, const std::string& service, const std::string& port,
                       std::function<void(pmix_status_t status, const std::string& port)> done)>
        names;

    // Daemons: the master learned that these daemons are gone (lost, not shrunk away). Requests
    // relayed to another daemon through one of them are answered with an error.
    std::function<void(const std::vector<Rank>& daemons)> daemons_lost;

    // The first service left unset, by name; empty when every one is set.
    std::string first_missing() const;
};

}  // namespace prte::runtime
