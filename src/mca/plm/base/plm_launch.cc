#include "mca/plm/base/plm_launch.h"

#include <algorithm>
#include <deque>
#include <set>

#include <fmt/format.h>

#include "mca/errmgr/base/errmgr_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_base_state.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_messages.h"
#include "mca/plm/base/plm_timeout.h"
#include "mca/ras/base/ras_base.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_report.h"
#include "rml/rml.h"
#include "runtime/hw_topology.h"
#include "runtime/runtime.h"
#include "runtime/topology.h"
#include "util/strings.h"

namespace prte::plm::base {
namespace {

using runtime::JobPtr;
using runtime::JobState;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
void activate(const JobPtr& job, JobState state) { rt().state().activate_job_state(job, state); }
const output::VerboseStream& verbose() { return framework().verbose(); }

// Jobs that arrived before the DVM was ready (PRRTE's prte_cache): the framework's (plm_base_state.h).
std::deque<JobPtr>& held_jobs() { return state().held_jobs; }

// A job that cannot go on: record why and end it in `state`. The spawn request is answered when
// the job's end is notified (state/dvm), after the job-end event that carries this message, so a
// tool learns why and not only that it failed.
void fail_job(const JobPtr& job, JobState state, const Status& why)
{
    verbose()(1, "job {} failed in {}: {}", job->nspace, runtime::to_string(job->state), why.message());
    if (job->abort_message.empty()) job->abort_message = why.message();
    if (job->exit_code == 0) job->exit_code = 1;
    activate(job, state);
}

// The master's own node hosts daemon rank 0. A hostfile that does not list it still leaves it in
// the DVM, but not in the allocation, so no application process is mapped there.
void adopt_master_node(runtime::NodePool& pool)
{
    const auto& me = rt().identity();
    runtime::Node* node = pool.find(me.node_name);
    if (!node) {
        runtime::Node n;
        n.name = me.node_name;
        n.state = runtime::NodeState::not_included;
        node = &pool.add(n);
    } else {
        node->state = runtime::NodeState::up;
    }
    node->daemon = me.rank;
    node->daemon_launched = true;
    // Daemon 0 never calls home, so no report carries its node's hardware: the master reads its own
    // (the process's shared topology, already discovered or read from hwloc_use_topo_file).
    node->hw = runtime::HwTopology::local();
    node->topology = node->hw ? node->hw->counts() : runtime::local_topology();
    node->machine = runtime::local_machine();
}

void setup_job(const JobPtr& job)
{
    if (!job->is_daemon_job && job->apps.empty()) {
        fail_job(job, JobState::never_launched, {Errc::bad_param, fmt::format("job {} has no application", job->nspace)});
        return;
    }
    for (size_t i = 0; i < job->apps.size(); ++i) {
        auto& app = job->apps[i];
        app.index = static_cast<int>(i);  // mappers index their node lists by it
        if (app.argv.empty()) app.argv.push_back(app.executable);
    }
    activate(job, JobState::init_complete);
}

// --add-host / --add-hostfile: the DVM grows first (spec: job-launch-state-machine.txt, 7.4.8.1,
// the app-triggered path). The job goes on once the request is accepted, and then waits at the
// map boundary for the grow to complete, like any job arriving during one; if the grow fails,
// the job is aborted with the campaign's cause, which names the node.
bool grow_for_job(const JobPtr& job)
{
    runtime::AllocationRequest request;
    request.directive = runtime::AllocDirective::extend;
    std::vector<std::string> hosts;
    for (const auto& app : job->apps) {
        request.node_list.insert(request.node_list.end(), app.add_hosts.begin(), app.add_hosts.end());
        if (!app.add_hostfile.empty()) request.hostfile = app.add_hostfile;
        hosts.insert(hosts.end(), app.add_hosts.begin(), app.add_hosts.end());
    }
    if (request.node_list.empty() && request.hostfile.empty()) return false;
    if (!rt().elastic().enabled()) {
        fail_job(job, JobState::alloc_failed,
                 {Errc::not_supported, fmt::format("--add-host/--add-hostfile need an elastic DVM: start prte with "
                                                   "--prtemca prte_elastic_mode 1 (job {} asked to add {})",
                                                   job->nspace, hosts.empty() ? request.hostfile : util::join(hosts, ","))});
        return true;
    }
    rt().campaigns().submit(std::move(request), [job, hosts](const Status& st, const std::string& alloc_id) {
        if (!st) {
            fail_job(job, JobState::alloc_failed,
                     {st.code(), fmt::format("job {} cannot add host(s) {} to the DVM: {}", job->nspace,
                                             util::join(hosts, ","), st.message())});
            return;
        }
        verbose()(5, "job {}: the DVM grows for it (allocation {})", job->nspace, alloc_id);
        activate(job, JobState::allocation_complete);
    });
    return true;
}

void allocate(const JobPtr& job)
{
    if (!job->is_daemon_job && grow_for_job(job)) return;
    if (job->is_daemon_job) {
        // The DVM's nodes: ras modules in priority order (spec step 3).
        runtime::NodePool& pool = rt().pool();
        ras::AllocateContext context;
        context.hosts = state().dvm_hosts;
        context.hostfile = state().dvm_hostfile;
        if (Status st = ras::base::allocate(context, pool); !st) {
            fail_job(job, JobState::alloc_failed, st);
            return;
        }
        adopt_master_node(pool);
    }
    activate(job, JobState::allocation_complete);
}

void allocation_complete(const JobPtr& job) { activate(job, JobState::launch_daemons); }

// The selected launcher starts daemons on the nodes that have none; on one node there are none to
// start, and the state still passes through so the multi-node path is the same one.
void launch_daemons(const JobPtr& job)
{
    // An application job starts no daemon: the DVM grows only through campaigns (src/elastic/).
    if (!job->is_daemon_job) {
        activate(job, JobState::daemons_reported);
        return;
    }
    // A simulated node (ras/simulator) never gets a daemon: the DVM is ready without it.
    std::vector<runtime::Node*> need;
    for (runtime::Node* node : rt().pool().nodes()) {
        if (!node->daemon_launched && !node->simulated && node->state != runtime::NodeState::down) need.push_back(node);
    }
    if (need.empty()) {
        activate(job, JobState::daemons_reported);
        return;
    }
    if (Status st = module()->launch_daemons(*rt().jobs().daemon_job(), need); !st) {
        fail_job(job, JobState::failed_to_launch, st);
        return;
    }
    activate(job, JobState::daemons_launched);
}

void daemons_launched(const JobPtr&)
{
    // Parks here until every daemon has called home (plm_daemons.cc moves it on).
}

// Every daemon has called home: the wireup broadcast tells them all of each other, then VM_READY.
// An application job passes through: the DVM is wired already (and each grow wires its own).
void daemons_reported(const JobPtr& job)
{
    if (!job->is_daemon_job) {
        activate(job, JobState::vm_ready);
        return;
    }
    wire_up(job);
}

// prun --display allocation / topo / map: the DVM's report goes to the spawner's stdout, ahead of any
// output of the job's processes (it is queued before they start).
void report_to_spawner(const JobPtr& job, const std::string& text)
{
    rt().host().deliver_output(*job, PMIX_RANK_UNDEF, PMIX_FWD_STDOUT_CHANNEL, text.data(), text.size());
}

void map(const JobPtr& job)
{
    // prte_autoscale: jobs waiting for nodes map first, in arrival order; prte_queue: a queued job
    // may not be passed (src/elastic/job_queue.h).
    if (rt().campaigns().hold_for_turn(job)) return;
    // Said once: a job that waits (for nodes, in the queue) maps again later, and says it then.
    std::string reports;
    if (job->reports.allocation) reports += rmaps::base::allocation_report(rt().pool(), job->reports.xml);
    if (job->reports.topology) reports += rmaps::base::topology_report(*job, rt().pool());
    if (job->reports.cpus) reports += rmaps::base::cpus_report(*job, rt().pool());
    Status st = rmaps::base::map_job(*job, rt().pool());
    if (!st) {
        // prte_autoscale: a job short of slots waits while the DVM grows for it; prte_queue: while
        // other jobs hold them.
        if (rt().campaigns().hold_for_slots(job, st)) return;
        if (!reports.empty()) report_to_spawner(job, reports);
        fail_job(job, JobState::map_failed, st);
        return;
    }
    if (!reports.empty()) report_to_spawner(job, reports);
    if (job->reports.map) report_to_spawner(job, rmaps::base::map_report(*job, rt().pool()));
    activate(job, JobState::map_complete);
}

void mapping_complete(const JobPtr& job) { activate(job, JobState::system_prep); }

// The first node of the job's map that is simulated (ras/simulator), if any.
const runtime::Node* simulated_node_of(const runtime::Job& job)
{
    for (const auto& proc : job.procs) {
        if (proc->node && proc->node->simulated) return proc->node;
    }
    return nullptr;
}

// --map-by ...:DONOTLAUNCH: the job is mapped and its reports are on their way to the spawner; it
// ends here, successfully, without a process. The spawner is answered as for a job that started,
// so that it learns the namespace and pulls the reports (state/dvm announces the end once it has);
// cleanup releases the slots the map claimed.
void end_without_launch(const JobPtr& job)
{
    verbose()(1, "job {} mapped {} process(es) and ends without starting them: its mapping asked for DONOTLAUNCH",
              job->nspace, job->num_procs());
    if (job->on_spawned) {
        auto answer = std::exchange(job->on_spawned, nullptr);
        answer({}, job->nspace);
    }
    activate(job, JobState::terminated);
}

void complete_setup(const JobPtr& job)
{
    if (job->num_procs() == 0) {
        fail_job(job, JobState::map_failed, {Errc::out_of_resource, fmt::format("job {} maps no process", job->nspace)});
        return;
    }
    if (job->mapping.donotlaunch) {
        end_without_launch(job);
        return;
    }
    if (const runtime::Node* node = simulated_node_of(*job)) {
        fail_job(job, JobState::failed_to_launch,
                 {Errc::not_supported, fmt::format("node {} is simulated (ras/simulator): nothing can run there; add "
                                                   "--map-by :DONOTLAUNCH to see the placement",
                                                   node->name)});
        return;
    }
    activate(job, JobState::launch_apps);
}

// Registration with the local PMIx server must finish before any process is forked (a client's
// PMIx_Init needs its namespace); the PMIx call is asynchronous, so the job continues from its
// completion.
void launch_apps(const JobPtr& job)
{
    // The launch boundary: no launch data for a departing daemon (spec: elastic-dvm-spec.txt,
    // hazard 2).
    if (rt().campaigns().hold_at_launch(job)) return;
    rt().host().register_job(job, [job](const Status& st) {
        rt().loop().post([job, st] {
            // The job may have ended (a kill, a timeout) while PMIx registered it.
            if (job->state != JobState::launch_apps || job->aborting) return;
            if (!st) {
                fail_job(job, JobState::failed_to_start, st);
                return;
            }
            activate(job, JobState::send_launch_msg);
        });
    });
}

bool has_preload(const runtime::Job& job)
{
    return std::any_of(job.apps.begin(), job.apps.end(), [](const runtime::AppContext& a) { return !a.preload.empty(); });
}

// prun --preload-binary / --preload-files: the files go only to the daemons that host processes
// of the job, so the launch message is sent to each daemon, along the tree as the broadcast goes,
// with the files for those and without for the others (which keep the map all the same).
Status send_with_preload(const JobPtr& job)
{
    std::set<runtime::Rank> hosts;
    for (const auto& proc : job->procs) hosts.insert(proc->node->daemon);
    rml::Payload bare;
    rml::Payload full = msg::encode_job(*job, true);
    for (runtime::Rank r : daemons().live_remote_ranks()) {
        const DaemonTable::Daemon* d = daemons().find(r);
        if (d && d->held) continue;  // a grow introduces it to the running jobs once it is wired
        bool host = hosts.count(r) > 0;
        if (!host && bare.empty()) bare = msg::encode_job(*job);
        verbose()(5, "job {}: launch message to daemon {}{}", job->nspace, r, host ? " with the preloaded files" : "");
        if (Status st = rml::Messenger::instance().send(r, rml::tag::launch_apps, host ? full : bare); !st) return st;
    }
    return {};
}

// Hands each daemon its share of the job: the master's own through its launcher, the others' in
// one broadcast of the whole map (every daemon keeps it: collectives route by it).
void send_launch_msg(const JobPtr& job)
{
    std::vector<runtime::Rank> mine;
    bool remote = false;
    for (const auto& proc : job->procs) {
        if (!proc->node || proc->node->daemon == runtime::kInvalidRank) {
            fail_job(job, JobState::failed_to_launch,
                     {Errc::not_supported, fmt::format("job {} maps rank {} to node {} which has no daemon", job->nspace,
                                                       proc->rank, proc->node ? proc->node->name : "?")});
            return;
        }
        if (proc->node->daemon == rt().identity().rank) {
            mine.push_back(proc->rank);
        } else {
            remote = true;
        }
    }
    arm_timeout(job);
    if (remote) {
        if (Status st = has_preload(*job) ? send_with_preload(job) : broadcast(rml::tag::launch_apps, msg::encode_job(*job)); !st) {
            fail_job(job, JobState::failed_to_launch, st);
            return;
        }
    }
    if (mine.empty()) return;
    if (Status st = odls::base::module()->launch(job, mine); !st) fail_job(job, JobState::failed_to_launch, st);
}

void post_launch(const JobPtr& job)
{
    cancel_spawn_timeout(*job);
    verbose()(5, "job {} is running: {} process(es)", job->nspace, job->num_procs());
    if (job->on_spawned) {
        auto answer = std::exchange(job->on_spawned, nullptr);
        answer({}, job->nspace);
    }
    // After the spawner's answer: a tool that spawned the job knows its namespace by then.
    rt().host().notify_job_start(job);
}

void registered(const JobPtr& job) { verbose()(5, "job {}: every process has registered", job->nspace); }

}  // namespace

void spawn(const JobPtr& job)
{
    // From submission: time held for a DVM still starting, or for nodes, counts.
    arm_spawn_timeout(job);
    if (!rt().dvm_ready()) {
        verbose()(5, "job {} held until the DVM is ready", job->nspace);
        held_jobs().push_back(job);
        return;
    }
    activate(job, JobState::init);
}

void set_dvm_resources(std::vector<std::string> hosts, std::string hostfile)
{
    state().dvm_hosts = std::move(hosts);
    state().dvm_hostfile = std::move(hostfile);
}

void release_held_jobs()
{
    while (!held_jobs().empty()) {
        JobPtr job = held_jobs().front();
        held_jobs().pop_front();
        activate(job, JobState::init);
    }
}

void terminate_job(const JobPtr& job, const std::string& why, JobState end_state, int exit_code)
{
    // Ended, but waiting for the jobs its processes spawned (state/dvm): ending it means ending them.
    if (job->awaiting_children) {
        for (const JobPtr& child : rt().jobs().unfinished_dependents_of(*job)) {
            terminate_job(child,
                          fmt::format("job {} was ended because job {}, whose process spawned it, was ended: {}",
                                      child->nspace, job->nspace, why),
                          end_state, exit_code);
        }
        return;
    }
    if (!runtime::is_alive(job->state) || job->aborting) return;
    job->aborting = true;
    job->abort_state = end_state;
    job->abort_message = why;
    job->exit_code = exit_code;
    size_t live = 0;
    for (const auto& p : job->procs) live += (p->pid > 0 && !p->waitpid_fired) ? 1 : 0;
    if (live == 0) {
        // Nothing running (never launched, or already gone): end it now.
        activate(job, end_state);
        return;
    }
    kill_job_procs(job);
}

Status install_launch_states(state::StateMachine& m)
{
    struct Entry {
        JobState state;
        const char* name;
        void (*callback)(const JobPtr&);
    };
    static const Entry entries[] = {
        {JobState::init, "plm_base_setup_job", setup_job},
        {JobState::allocate, "ras_base_allocate", allocate},
        {JobState::allocation_complete, "plm_base_allocation_complete", allocation_complete},
        {JobState::launch_daemons, "plm_launch_daemons", launch_daemons},
        {JobState::daemons_launched, "plm_base_daemons_launched", daemons_launched},
        {JobState::daemons_reported, "plm_base_daemons_reported", daemons_reported},
        {JobState::map, "rmaps_base_map_job", map},
        {JobState::map_complete, "plm_base_mapping_complete", mapping_complete},
        {JobState::system_prep, "plm_base_complete_setup", complete_setup},
        {JobState::launch_apps, "plm_base_launch_apps", launch_apps},
        {JobState::send_launch_msg, "plm_base_send_launch_msg", send_launch_msg},
        {JobState::running, "plm_base_post_launch", post_launch},
        {JobState::registered, "plm_base_registered", registered},
    };
    for (const auto& e : entries) {
        if (Status st = m.add_job_state(e.state, e.name, e.callback); !st) return st;
    }
    return {};
}

}  // namespace prte::plm::base
