#include "mca/plm/slurm/plm_slurm.h"

#include <signal.h>
#include <stdlib.h>

#include <cstdio>

#include <fmt/format.h>

#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "runtime/runtime.h"
#include "util/hostlist.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::plm::slurm {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
const output::VerboseStream& verbose() { return base::framework().verbose(); }

// A node name as a shell word (Slurm node names are plain, but the table must never break).
std::string shell_word(const std::string& word)
{
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

SlurmLaunchModule::~SlurmLaunchModule() { finalize(); }

Status SlurmLaunchModule::init() { return {}; }

// plm/ssh, for nodes no Slurm job holds: the framework is single-select, so this module asks the
// ssh component (loaded and opened with the framework) for a module of its own.
Module* SlurmLaunchModule::ssh()
{
    if (ssh_tried_) return static_cast<Module*>(ssh_.get());
    ssh_tried_ = true;
    for (const auto& candidate : base::framework().candidates()) {
        if (!candidate.opened || !candidate.descriptor || std::string(candidate.descriptor->name) != "ssh") continue;
        mca::QueryResult result;
        candidate.descriptor->query(mca::QueryContext{mca::ProcessRole::master}, result);
        if (result.module && dynamic_cast<Module*>(result.module.get())) ssh_ = std::move(result.module);
    }
    // One that cannot start is as good as none: the caller then says plm/ssh is not available.
    if (ssh_) {
        if (Status st = static_cast<Module*>(ssh_.get())->init(); !st) {
            verbose()(1, "plm/slurm: plm/ssh cannot start, so nodes in no Slurm job cannot get daemons: {}",
                      st.message());
            ssh_.reset();
        }
    }
    return static_cast<Module*>(ssh_.get());
}

Status SlurmLaunchModule::launch_daemons(runtime::Job& daemon_job, const std::vector<runtime::Node*>& nodes)
{
    std::map<std::string, std::vector<runtime::Node*>> by_job;
    std::vector<runtime::Node*> others;
    for (runtime::Node* node : nodes) {
        if (node->scheduler_job.empty()) {
            others.push_back(node);
        } else {
            by_job[node->scheduler_job].push_back(node);
        }
    }
    for (const auto& [job, group] : by_job) {
        if (Status st = launch_step(job, group); !st) return st;
    }
    if (!others.empty()) {
        Module* fallback = ssh();
        std::vector<std::string> names;
        for (const auto* n : others) names.push_back(n->name);
        if (!fallback) {
            return {Errc::not_supported,
                    fmt::format("node(s) {} are in no Slurm job and plm/ssh is not available to start their daemons "
                                "(is it excluded with --prtemca plm?)",
                                util::join(names, ", "))};
        }
        verbose()(2, "plm/slurm: {} node(s) in no Slurm job go to plm/ssh: {}", others.size(), util::join(names, ", "));
        return fallback->launch_daemons(daemon_job, others);
    }
    return {};
}

Status SlurmLaunchModule::launch_step(const std::string& job, const std::vector<runtime::Node*>& nodes)
{
    auto step = std::make_unique<Step>();
    step->id = ++next_step_;
    step->job = job;
    std::vector<runtime::Rank> ranks = base::assign_daemons(nodes);
    std::vector<std::string> names;
    for (size_t i = 0; i < ranks.size(); ++i) {
        step->nodes[ranks[i]] = nodes[i]->name;
        step->waiting.insert(ranks[i]);
        names.push_back(nodes[i]->name);
    }
    runtime::ChildProcess::Spec spec;
    spec.argv = {options_.srun,
                 "--overlap",
                 // Without it the step has one CPU per node, and a task/affinity or task/cgroup
                 // plugin would confine the daemon, and every process it starts, to that one.
                 "--whole",
                 "--jobid=" + job,
                 fmt::format("--nodes={}", names.size()),
                 fmt::format("--ntasks={}", names.size()),
                 "--ntasks-per-node=1",
                 "--nodelist=" + util::compress_hostlist(names),
                 "--no-kill",
                 "--kill-on-bad-exit=0",
                 "--input=all",
                 "--mpi=none",
                 "--cpu-bind=none",
                 "--job-name=prted"};
    spec.argv.insert(spec.argv.end(), options_.extra_args.begin(), options_.extra_args.end());
    spec.argv.insert(spec.argv.end(), {"/bin/sh", "-c", script(*step)});
    // prte's own SLURM_* variables describe the DVM's job and the salloc shell's step; the step's
    // job is named on the command line instead, whichever job that is.
    spec.env_unset = {"SLURM_*"};
    if (const char* conf = getenv("SLURM_CONF")) spec.env_set.emplace_back("SLURM_CONF", conf);
    spec.stdin_text = base::dvm_secret() + "\n";
    verbose()(2, "plm/slurm: srun {} starts {} daemon(s) in Slurm job {} on {}", step->id, names.size(), job,
              util::compress_hostlist(names));
    verbose()(5, "plm/slurm: srun {}: {}", step->id, util::join(spec.argv, " "));
    uint64_t id = step->id;
    Step& s = *step;
    steps_[id] = std::move(step);
    Status st = s.srun.start(
        rt().loop().base(), spec,
        [id](const std::string& line) { std::fprintf(stderr, "[srun %llu] %s\n", static_cast<unsigned long long>(id), line.c_str()); },
        [this, id](int status) { step_ended(id, status); });
    if (!st) {
        fail_waiting(s, fmt::format("cannot run {}: {}", options_.srun, st.message()));
        return {};
    }
    // Owned by the step: forgetting the step cancels it.
    s.timer = runtime::LoopTimer(rt().loop(), [this, &s] { callhome_overdue(s); });
    s.timer.arm(std::chrono::seconds(options_.callhome_timeout));
    return {};
}

// The task's rank is looked up by the node Slurm started it on.
std::string SlurmLaunchModule::script(const Step& step) const
{
    std::string text = "case \"$SLURMD_NODENAME\" in\n";
    for (const auto& [rank, node] : step.nodes) text += fmt::format("{}) r={} ;;\n", shell_word(node), rank);
    text +=
        "*) echo \"plm/slurm: srun started a daemon on node '$SLURMD_NODENAME', which it did not ask for\" >&2; "
        "exit 1 ;;\nesac\nexec";
    for (const auto& word : base::daemon_command_for_shell("\"$r\"", "\"$SLURMD_NODENAME\"")) text += " " + word;
    return text;
}

void SlurmLaunchModule::fail_waiting(Step& step, const std::string& why)
{
    step.timer.cancel();
    std::set<runtime::Rank> waiting = std::move(step.waiting);
    step.waiting.clear();
    for (runtime::Rank r : waiting) {
        base::daemon_failed(r, fmt::format("daemon {} on node {} failed to start: {}", r, step.nodes[r], why));
    }
}

void SlurmLaunchModule::callhome_overdue(Step& step)
{
    bool none_reported = step.waiting.size() == step.nodes.size();
    fail_waiting(step, fmt::format("did not call home within {} s (plm_slurm_callhome_timeout); srun said: {}",
                                   options_.callhome_timeout, step.srun.tail()));
    // A step none of whose daemons came up has nothing to keep.
    if (none_reported) step.srun.signal(SIGTERM);
}

void SlurmLaunchModule::step_ended(uint64_t id, int status)
{
    auto it = steps_.find(id);
    if (it == steps_.end()) return;
    Step& step = *it->second;
    if (!step.waiting.empty()) {
        fail_waiting(step, fmt::format("srun {} before the daemon called home; srun said: {}",
                                       runtime::ChildProcess::describe(status), step.srun.tail()));
    } else {
        verbose()(5, "plm/slurm: srun {} (Slurm job {}) {}", id, step.job, runtime::ChildProcess::describe(status));
    }
    step.timer.cancel();
    // Forgotten from a posted task: this runs inside the srun's own exit callback.
    rt().loop().post([this, id] { steps_.erase(id); });
}

void SlurmLaunchModule::daemon_reported(runtime::Rank rank)
{
    for (auto& [id, step] : steps_) {
        if (step->waiting.erase(rank) && step->waiting.empty()) step->timer.cancel();
    }
    if (ssh_) static_cast<Module*>(ssh_.get())->daemon_reported(rank);
}

// A rolled-back grow: a step whose daemons are all to go is ended (srun passes SIGTERM to its
// tasks); the rest are plm/ssh's.
Status SlurmLaunchModule::kill_daemons(const std::vector<runtime::Rank>& ranks)
{
    std::set<runtime::Rank> doomed(ranks.begin(), ranks.end());
    for (auto& [id, step] : steps_) {
        bool all = !step->nodes.empty();
        for (const auto& [rank, node] : step->nodes) all = all && doomed.count(rank);
        if (all) {
            verbose()(2, "plm/slurm: ending srun {} (its daemons are rolled back)", id);
            step->srun.signal(SIGTERM);
        }
    }
    if (ssh_) return static_cast<Module*>(ssh_.get())->kill_daemons(ranks);
    return {};
}

// At the end the daemons have been ordered to exit: each srun ends with them. One that does not is
// ended (ChildProcess sends SIGTERM), so no step outlives prte.
void SlurmLaunchModule::finalize() noexcept
{
    for (auto& [id, step] : steps_) {
        step->timer.cancel();
        step->srun.close_stdin();
    }
    for (auto& [id, step] : steps_) step->srun.wait_for_exit(3);
    steps_.clear();
    if (ssh_) static_cast<Module*>(ssh_.get())->finalize();
}

}  // namespace prte::plm::slurm
