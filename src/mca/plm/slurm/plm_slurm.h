// plm/slurm: inside a Slurm job, daemons are started with srun (docs/slurm.md, "Launching").
//
// One srun per launch and Slurm job: the nodes of a campaign that Slurm granted are grouped by the
// Slurm job holding them (the DVM's own job for its original nodes, a companion job for a grown one,
// runtime::Node::scheduler_job) and each group gets one `srun --overlap --jobid=<job> -N <k>
// --ntasks-per-node=1 --nodelist=<nodes>`. --overlap lets the daemons' step share the nodes with
// any other step, --whole gives it every CPU of them (the daemon's processes run inside it);
// --no-kill keeps one node's failure from ending the other daemons. Each task finds
// its own rank from the node Slurm started it on (SLURMD_NODENAME) in a table built into the
// command, so one command serves every node. The DVM secret goes to srun's standard input, which
// srun hands to every task (--input=all), never on a command line; the parameters travel as
// plm/ssh passes them (base::daemon_command_for_shell).
//
// A daemon that does not call home is reported with its node and what srun printed: when srun
// exits first, or after plm_slurm_callhome_timeout seconds. Nodes Slurm did not grant (ras/ssh's,
// a --host given with the allocation) are started by plm/ssh, which this module loads for them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mca/plm/plm.h"
#include "runtime/child_process.h"
#include "runtime/loop_timer.h"

namespace prte::plm::slurm {

struct Options {
    std::string srun = "srun";
    std::vector<std::string> extra_args;
    int callhome_timeout = 60;
};

class SlurmLaunchModule final : public Module {
  public:
    explicit SlurmLaunchModule(Options options) : options_(std::move(options)) {}
    ~SlurmLaunchModule() override;

    Status init() override;
    Status launch_daemons(runtime::Job& daemon_job, const std::vector<runtime::Node*>& nodes) override;
    Status kill_daemons(const std::vector<runtime::Rank>& ranks) override;
    void daemon_reported(runtime::Rank rank) override;
    void finalize() noexcept override;

  private:
    // One srun: the daemons it starts, those not called home yet, its timer.
    struct Step {
        uint64_t id = 0;
        std::string job;
        std::map<runtime::Rank, std::string> nodes;  // rank -> node
        std::set<runtime::Rank> waiting;
        runtime::ChildProcess srun;
        runtime::LoopTimer timer;  // the call-home deadline, while any daemon is waited for
    };

    Status launch_step(const std::string& job, const std::vector<runtime::Node*>& nodes);
    std::string script(const Step& step) const;
    void step_ended(uint64_t id, int status);
    void fail_waiting(Step& step, const std::string& why);
    void callhome_overdue(Step& step);
    Module* ssh();

    Options options_;
    std::map<uint64_t, std::unique_ptr<Step>> steps_;
    uint64_t next_step_ = 0;
    std::unique_ptr<mca::Module> ssh_;
    bool ssh_tried_ = false;
};

}  // namespace prte::plm::slurm
