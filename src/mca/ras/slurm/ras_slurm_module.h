// ras/slurm: the DVM's nodes when prte runs inside a Slurm job, and more nodes from Slurm as the
// DVM grows (docs/slurm.md).
//
// allocate(): inside a job (SLURM_JOB_ID), the job's nodes (SLURM_JOB_NODELIST) with their slots
// (SLURM_TASKS_PER_NODE when the job was given a task count, else SLURM_JOB_CPUS_PER_NODE, both in
// Slurm's compressed "2(x3),1" form); outside one it passes, so ras/hosts serves.
//
// modify(): EXTEND / NEW by a number of nodes or a list of Slurm nodes becomes one companion job per
// node (ras_slurm_companion.h), asked for at once with `salloc --immediate`: salloc runs as a child
// watched from the loop, so the progress thread never waits on Slurm, and the request completes
// when every node is granted, or fails with Slurm's reason (the nodes already granted for it given
// back) when one is refused. A node list naming any node that is not a Slurm node is passed on.
//
// Giving nodes back: shrink_complete() and grow_failed() end the companion jobs of exactly the
// departed nodes this module brought in, and shrink the DVM's own job (`scontrol update
// NodeList=`) for its original nodes; every other node is left to its own module. When the module
// goes (the DVM ends), every companion job is ended.
//
// Slurm changing the allocation by itself: a companion job Slurm ends (scancel, a time limit) takes
// its srun step and so its daemon with it, which leaves through the daemon-loss path. A node Slurm
// drains or finds down is seen by a look at node states every ras_slurm_watch_interval seconds (in
// elastic mode): the module pushes its release, an unrequested departure, and gives it back.
//
// Lending to the autoscaler (prte_autoscale): the same looks also ask sinfo which nodes are idle,
// with their CPUs; lendable_slots() answers from that list, less the DVM's nodes and those a grow
// in progress is being granted, plus the nodes it gave back since (idle for Slurm once their
// companion job ends). It is at most one look old: a node it counts may be taken by then, and the
// grow that asks for it is refused by salloc as any grow is.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mca/ras/ras.h"
#include "mca/ras/slurm/ras_slurm_companion.h"
#include "runtime/child_process.h"
#include "runtime/loop_timer.h"

namespace prte::ras::slurm {

inline constexpr const char* kComponentName = "slurm";

struct Options {
    CompanionOptions companion;
    std::string scontrol = "scontrol";
    std::string sinfo = "sinfo";
    int watch_interval = 5;  // ras_slurm_watch_interval: seconds between looks at node states; 0: never
};

class SlurmModule : public Module {
  public:
    explicit SlurmModule(Options options);
    ~SlurmModule() override;

    Status allocate(const AllocateContext& context, runtime::NodePool& pool) override;
    Status modify(const runtime::AllocationRequest& request, RequestCompletion&& completion) override;
    void shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool) noexcept override;
    void grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool) noexcept override;
    void release_allocation(const std::string& alloc_id) noexcept override;
    std::optional<std::vector<int>> lendable_slots() noexcept override;

  private:
    // One grow request: its companion jobs, until all are granted or one is refused.
    struct Grow {
        uint64_t id = 0;
        runtime::AllocationRequest request;
        RequestCompletion completion;
        std::vector<std::unique_ptr<CompanionJob>> jobs;
        size_t granted = 0;
        runtime::LoopTimer timer;  // the backstop, should salloc not answer
    };

    Status start_grow(const runtime::AllocationRequest& request, RequestCompletion&& completion,
                      const std::vector<std::string>& names, size_t count);
    void grow_job_granted(uint64_t grow_id);
    void grow_job_ended(uint64_t grow_id, CompanionJob& job, const std::string& why);
    void fail_grow(uint64_t grow_id, const std::string& why);
    void finish_grow(uint64_t grow_id);

    void retire(CompanionJob& job);
    void companion_ended(const std::string& node, const std::string& why);
    void give_back(const std::vector<std::string>& names, const runtime::NodePool& pool);
    void shrink_own_job(const std::vector<std::string>& leaving);
    void load_cluster_nodes();
    void start_watching();
    // One sinfo run at a time per kind of look; its lines, trimmed.
    struct Look {
        std::unique_ptr<runtime::ChildProcess> sinfo;
        std::vector<std::string> lines;
    };
    bool run_sinfo(Look& look, std::vector<std::string> args, const char* what,
                   std::function<void(const std::vector<std::string>&)> done);
    void look_at_node_states();
    void nodes_unusable(const std::vector<std::string>& names);
    void nodes_idle(const std::vector<std::string>& lines, uint64_t look);
    void note_idle(const std::string& node, int cpus);
    bool lends_whole_nodes() const;

    Options options_;
    std::string job_id_;                  // the DVM's own Slurm job
    std::vector<std::string> own_nodes_;  // its nodes still held by it
    std::set<std::string> cluster_nodes_;  // every node Slurm knows, for routing node lists
    std::map<uint64_t, std::unique_ptr<Grow>> grows_;
    std::map<std::string, std::unique_ptr<CompanionJob>> companions_;  // by node, granted and held
    std::vector<std::unique_ptr<CompanionJob>> retired_;               // given back, not yet ended
    std::vector<std::unique_ptr<runtime::ChildProcess>> commands_;     // scontrol runs in flight
    runtime::LoopTimer watch_timer_;  // periodic, every watch_interval, in elastic mode
    Look unusable_look_;  // nodes drained, down or failed
    Look idle_look_;      // idle nodes and their CPUs, when autoscaling
    std::optional<std::vector<std::pair<std::string, int>>> idle_nodes_;  // the last idle look's answer
    uint64_t idle_looks_ = 0;  // idle looks started
    // Nodes given back (node: CPUs, idle looks started by then), until a look started after
    // that answers: an answer from an earlier look must not drop them again.
    std::map<std::string, std::pair<int, uint64_t>> given_back_;
    std::set<std::string> pushed_out_;  // nodes whose release was pushed, so it is pushed once
    uint64_t next_grow_ = 0;
    uint64_t allocations_granted_ = 0;
};

}  // namespace prte::ras::slurm
