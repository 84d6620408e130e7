// A companion job: one Slurm job that holds one node the DVM grew onto, for as long as the DVM
// keeps it (docs/slurm.md, "How grown nodes are held").
//
// It is `salloc --immediate=<timeout> -N 1 [-w <node>] <extra args> sh -c '<report>; cat'`, run as
// a child of prte: salloc asks for the node and fails at once (with Slurm's reason) when it cannot
// have it now; once granted, its command prints the job id and node and then reads its standard
// input to the end. That input is a pipe only prte holds, so the job ends - and Slurm has the node
// back - when prte releases it (closes the pipe), when prte exits, and when prte is killed with
// SIGKILL (the kernel closes the pipe): a crashed prte leaves no companion job behind.
//
// One job per node (not one per grow) because Slurm 22.05 without slurmdbd resizes a job in place
// only once: with one node per job, giving a node back is always ending its job.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "util/status.h"

struct event_base;

namespace prte::ras::slurm {

struct CompanionOptions {
    std::string salloc = "salloc";
    int immediate_seconds = 10;             // ras_slurm_grow_timeout
    std::vector<std::string> extra_args;    // ras_slurm_salloc_args ("--exclusive")
    std::string job_name;                   // shown in squeue
};

class CompanionJob {
  public:
    // granted: the job runs and holds node(); ended: salloc exited, with what it said (before a
    // grant: Slurm's refusal; after: the job was released, cancelled or ended by Slurm).
    using Granted = std::function<void(CompanionJob&)>;
    using Ended = std::function<void(CompanionJob&, const std::string& why)>;

    Status start(event_base* base, const CompanionOptions& options, const std::string& node, Granted granted,
                 Ended ended);
    // Replaces what is called when salloc exits (a granted job changes hands).
    void on_end(Ended ended) { on_ended_ = std::move(ended); }
    // Gives the node back: the holder reads end of input, salloc relinquishes the job; a request
    // still pending is cancelled.
    void release();
    // For shutdown: releases and waits (up to `seconds`) for salloc to have told Slurm.
    void release_and_wait(int seconds);

    bool granted() const { return granted_; }
    bool ended() const { return ended_; }
    bool released() const { return released_; }
    const std::string& job_id() const { return job_id_; }
    const std::string& node() const { return node_; }
    int cpus() const { return cpus_; }

  private:
    void on_line(const std::string& line);
    // What salloc said, for a refusal: its own lines, without the job's report.
    std::string slurm_reason() const;

    runtime::ChildProcess salloc_;
    Granted on_granted_;
    Ended on_ended_;
    std::vector<std::string> salloc_lines_;
    std::string job_id_;
    std::string node_;
    int cpus_ = 0;
    bool granted_ = false;
    bool ended_ = false;
    bool released_ = false;
};

}  // namespace prte::ras::slurm
