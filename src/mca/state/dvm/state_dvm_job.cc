// The master's own job-state callbacks (the "(dvm-local)" entries of spec 7.4.3).
#include "mca/state/dvm/state_dvm.h"

#include <malloc.h>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "mca/state/base/state_base.h"
#include "runtime/state_machine.h"
#include "mca/state/dvm/state_dvm_procs.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::state::dvm {
namespace {

using runtime::JobPtr;
using runtime::JobState;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
void activate(const JobPtr& job, JobState state) { rt().state().activate_job_state(job, state); }

// Lets a potential DVM expansion go through the allocation step (spec step 2).
void init_complete(const JobPtr& job) { activate(job, JobState::allocate); }

void vm_ready(const JobPtr& job)
{
    if (job->is_daemon_job) {
        for (runtime::Node* node : rt().pool().nodes()) {
            if (node->daemon_launched && node->state == runtime::NodeState::unknown) node->state = runtime::NodeState::up;
        }
        rt().mark_dvm_ready();
        plm::base::release_held_jobs();
        return;
    }
    // The map boundary: parked while the DVM changes size (spec: job-launch-state-machine.txt,
    // 7.4.8.4).
    if (rt().campaigns().hold_at_map(job)) return;
    activate(job, JobState::map);
}

void job_started(const JobPtr& job) { base::framework().verbose()(5, "job {}: first process started", job->nspace); }

// A line of the DVM's about `job` on the stderr of the prun that started its job tree: the host
// delivers a spawned job's output as its tree root's (pmix/events.cc), this report included.
void tell_tree(const runtime::Job& job, const std::string& line)
{
    rt().host().deliver_output(job, PMIX_RANK_UNDEF, PMIX_FWD_STDERR_CHANNEL, line.data(), line.size());
}

// The job tree's end (issue 32, item 5). The jobs a job's processes spawned (MPI_Comm_spawn)
// depend on it unless spawned with a separate lifetime (PMIX_SPAWN_CHILD_SEP):
//  - a job that ends abnormally (killed, failed, aborted) takes them with it, as under PRRTE 3:
//    left running, they would hold their slots with nobody to take their output. Each says why in
//    its own end, and the tree's prun prints that line;
//  - a job that ends normally waits for them: its end, the event its prun waits for, is announced
//    once they have ended too, so the whole tree's output reaches prun, as prterun does for a
//    spawn tree. Killing them instead would cut short children finishing a moment after their
//    parents. A prun ^C meanwhile ends them (plm/base terminate_job).
void end_dependents(const JobPtr& job)
{
    for (const JobPtr& child : rt().jobs().unfinished_dependents_of(*job)) {
        if (!runtime::is_alive(child->state) || child->aborting) continue;
        std::string why = fmt::format("job {} was ended because job {}, whose process spawned it, ended", child->nspace,
                                      job->nspace);
        base::framework().verbose()(2, "{}", why);
        tell_tree(*job, "prte: " + why + "\n");
        plm::base::terminate_job(child, why, JobState::killed_by_cmd, job->exit_code != 0 ? job->exit_code : 1);
    }
}

// A spawned job that failed on its own (not ended by its parent's end): its end event goes to the
// process that spawned it, so the tree's prun also says it, or nobody would see why.
void report_failed_dependent(const JobPtr& job)
{
    JobPtr parent = rt().jobs().parent_of(*job);
    if (!parent || (!runtime::is_alive(parent->state) && !parent->awaiting_children)) return;
    tell_tree(*job, fmt::format("prte: job {}, spawned by job {}, ended with status {}: {}\n", job->nspace,
                                parent->nspace, job->exit_code,
                                job->abort_message.empty() ? runtime::to_string(job->state) : job->abort_message));
}

bool any_proc_started(const runtime::Job& job)
{
    for (const auto& proc : job.procs) {
        if (proc->pid > 0) return true;
    }
    return false;
}

// PMIx's default for PMIX_REPORT_CHILD_SEP (mpirun's too): the first job of the tree that fails on
// its own while its root runs (or waits for its children) gives the root's end its status, if the
// root's own is 0 (pmix::notify_job_end). Kept whatever the root asked: it reads it at its end.
// A spawn refused before any of its processes started (no room, a bad app) has no exit status: the
// failure is the spawn's answer (MPI_Comm_spawn returns it), and the spawner decides what it means.
void count_in_tree_status(const JobPtr& job)
{
    JobPtr root = rt().jobs().root_of(job);
    if (!root || root == job || root->children_exit_code != 0) return;
    if (!any_proc_started(*job)) return;
    if (!runtime::is_alive(root->state) && !root->awaiting_children) return;
    root->children_exit_code = job->exit_code != 0 ? job->exit_code : 1;
    root->children_failure = fmt::format("job {}, spawned in job {}'s tree, ended with status {}", job->nspace,
                                         root->nspace, root->children_exit_code);
}

// A job that finished its part of the tree lets a parent waiting for it announce its end.
void release_waiting_parent(const JobPtr& job)
{
    JobPtr parent = rt().jobs().parent_of(*job);
    if (!parent || !parent->awaiting_children || !rt().jobs().unfinished_dependents_of(*parent).empty()) return;
    base::framework().verbose()(5, "job {}: the jobs it spawned have ended", parent->nspace);
    parent->awaiting_children = false;
    activate(parent, JobState::notify_completed);
    release_waiting_parent(parent);
}

// A job has ended, normally or not (TERMINATED and every error state end here). The daemon job
// ending means the DVM itself could not start or lost its footing: say why and shut down.
void check_complete(const JobPtr& job)
{
    if (job->is_daemon_job) {
        output::error("the DVM cannot start: {}", job->abort_message);
        rt().request_shutdown(1, job->abort_message);
        return;
    }
    if (job->state != JobState::terminated) {
        count_in_tree_status(job);
        report_failed_dependent(job);
        end_dependents(job);
    } else if (size_t running = rt().jobs().unfinished_dependents_of(*job).size(); running > 0) {
        base::framework().verbose()(5, "job {} ended; its end waits for the {} job(s) its processes spawned",
                                    job->nspace, running);
        job->awaiting_children = true;
        return;
    }
    activate(job, JobState::notify_completed);
    release_waiting_parent(job);
}

void announce_end(const JobPtr& job);

void dvm_notify(const JobPtr& job)
{
    // A job whose processes started but ended before all of them were running (a rank that fails
    // at once) did launch: its spawner gets the namespace, then the end event with the exit status.
    if (job->on_spawned && any_proc_started(*job)) {
        auto answer = std::exchange(job->on_spawned, nullptr);
        answer({}, job->nspace);
    }
    // Output held for a spawner that has not pulled it yet goes first: the end follows it. A job
    // that never started has no output, and its spawner, refused, will not pull - unless it was
    // mapped with DONOTLAUNCH: its spawner was answered and pulls the map and allocation reports.
    if (!any_proc_started(*job) && !job->mapping.donotlaunch) {
        announce_end(job);
        return;
    }
    rt().host().when_output_released(job, [job] { announce_end(job); });
}

void announce_end(const JobPtr& job)
{
    rt().host().deliver_output_complete(*job);
    rt().host().notify_job_end(job);
    // After the job-end event, so a tool that spawned it reads the reason before the failure.
    if (job->on_spawned) {
        auto answer = std::exchange(job->on_spawned, nullptr);
        // A job its --spawn-timeout ended is answered PMIX_ERR_TIMEOUT: prun exits 110 for it.
        answer(Status(job->timed_out ? Errc::timed_out : Errc::internal,
                      job->abort_message.empty() ? "the job failed to start" : job->abort_message),
               job->nspace);
    }
    activate(job, JobState::notified);
}

// Jobs of at least this many processes give their memory back to the system when they end.
constexpr size_t kLargeJob = 10000;

void cleanup_job(const JobPtr& job)
{
    if (!job->is_daemon_job) {
        plm::base::release_job_on_daemons(job);
        if (odls::Module* launcher = odls::base::module()) launcher->release_job(job);  // preloaded files here
        // Before PMIx forgets the namespace: a collective still waiting on it is answered first.
        if (grpcomm::Module* collectives = grpcomm::base::module()) collectives->job_released(job->nspace);
        rt().host().deregister_job(job);
        rt().campaigns().slots_freed(*job);
        for (auto& proc : job->procs) {
            rmaps::base::release_proc(*proc);
            proc->node = nullptr;
        }
        const bool large = job->procs.size() >= kLargeJob;
        rt().jobs().remove(job->nspace);
        // As libevent counts them: a timer left armed by a job that has ended (its --timeout's
        // was, once) shows as a count that grows with every job (job_timeout_timer_cancelled).
        base::framework().verbose()(5, "job {}: cleaned up; {} timer(s) armed on the loop", job->nspace,
                                    rt().loop().armed_timers());
        // glibc keeps what a large job's records freed (tens of MB for 100,000 ranks) instead of
        // giving it back; a DVM that lives for months should return to its idle size. Posted, so
        // that it runs once this activation has dropped the last reference to the job: trimmed
        // here, with the job's 100,000 processes still alive, it gave back nothing (45 MB of free
        // heap stayed; bench/mapping's "kept").
        if (large) rt().loop().post([] { malloc_trim(0); });
    }
    rt().finish_shutdown_when_idle();
}

}  // namespace

Status DvmStateModule::install(StateMachine& m)
{
    if (Status st = plm::base::install_launch_states(m); !st) return st;
    struct Entry {
        JobState state;
        const char* name;
        void (*callback)(const JobPtr&);
    };
    static const Entry entries[] = {
        {JobState::init_complete, "init_complete", init_complete},
        {JobState::vm_ready, "vm_ready", vm_ready},
        {JobState::started, "job_started", job_started},
        {JobState::terminated, "check_complete", check_complete},
        {JobState::error, "check_complete", check_complete},
        {JobState::notify_completed, "dvm_notify", dvm_notify},
        {JobState::notified, "cleanup_job", cleanup_job},
    };
    for (const auto& e : entries) {
        if (Status st = m.add_job_state(e.state, e.name, e.callback); !st) return st;
    }
    return install_proc_states(m);
}

}  // namespace prte::state::dvm
