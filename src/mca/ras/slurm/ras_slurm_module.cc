#include "mca/ras/slurm/ras_slurm_module.h"

#include <dlfcn.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "mca/ras/base/ras_base.h"
#include "mca/ras/slurm/ras_slurm_counts.h"
#include "runtime/runtime.h"
#include "util/hostlist.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::ras::slurm {
namespace {

const output::VerboseStream& verbose() { return base::framework().verbose(); }
runtime::Runtime& rt() { return runtime::Runtime::instance(); }
Status pass(const std::string& why) { return {Errc::take_next_option, why}; }

const char* env(const char* name) { return getenv(name); }
const char* env(const char* name, const char* fallback)
{
    const char* v = getenv(name);
    return v ? v : getenv(fallback);
}

// Which variable holds the slots per node: the task layout when the job was given a task count
// (salloc -n / --ntasks-per-node), else the CPUs Slurm allocated on each node.
const char* slots_variable()
{
    if (env("SLURM_NTASKS") || env("SLURM_NTASKS_PER_NODE")) {
        if (env("SLURM_TASKS_PER_NODE")) return "SLURM_TASKS_PER_NODE";
    }
    return "SLURM_JOB_CPUS_PER_NODE";
}

}  // namespace

SlurmModule::SlurmModule(Options options) : options_(std::move(options)) {}

SlurmModule::~SlurmModule()
{
    watch_timer_.cancel();
    unusable_look_.sinfo.reset();
    idle_look_.sinfo.reset();
    for (auto& [id, grow] : grows_) {
        grow->timer.cancel();
        for (auto& job : grow->jobs) job->release();
    }
    // Every node obtained from Slurm goes back before prte exits: release all, then wait for each
    // salloc to have told Slurm.
    for (auto& [node, job] : companions_) job->release();
    for (auto& [node, job] : companions_) job->release_and_wait(5);
    for (auto& [id, grow] : grows_) {
        for (auto& job : grow->jobs) job->release_and_wait(5);
    }
    for (auto& job : retired_) job->release_and_wait(5);
    for (auto& command : commands_) command->wait_for_exit(5);
}

Status SlurmModule::allocate(const AllocateContext&, runtime::NodePool& pool)
{
    const char* job = env("SLURM_JOB_ID", "SLURM_JOBID");
    if (!job || !*job) return pass("not inside a Slurm job (no SLURM_JOB_ID)");
    const char* nodelist = env("SLURM_JOB_NODELIST", "SLURM_NODELIST");
    if (!nodelist || !*nodelist) {
        return {Errc::bad_param, fmt::format("inside Slurm job {} but SLURM_JOB_NODELIST is not set", job)};
    }
    std::vector<std::string> names;
    if (Status st = util::expand_hostlist(nodelist, names); !st) {
        return {st.code(), fmt::format("SLURM_JOB_NODELIST: {}", st.message())};
    }
    const char* var = slots_variable();
    const char* counts_text = env(var);
    std::vector<int> slots;
    if (counts_text) {
        if (Status st = expand_counts(counts_text, slots); !st) return {st.code(), fmt::format("{}: {}", var, st.message())};
        if (slots.size() != names.size()) {
            return {Errc::bad_param, fmt::format("{}='{}' gives {} count(s) for the {} node(s) of SLURM_JOB_NODELIST='{}'",
                                                 var, counts_text, slots.size(), names.size(), nodelist)};
        }
    }
    job_id_ = job;
    for (size_t i = 0; i < names.size(); ++i) {
        runtime::Node node;
        node.name = names[i];
        if (!slots.empty() && slots[i] > 0) {
            node.slots = slots[i];
            node.slots_given = true;
        }
        node.ras_component = kComponentName;
        node.scheduler_job = job_id_;
        pool.add(node);
        own_nodes_.push_back(names[i]);
    }
    verbose()(5, "slurm: job {} gives {} node(s): {} (slots from {})", job_id_, names.size(), nodelist,
              counts_text ? var : "nowhere: 1 each");
    load_cluster_nodes();
    start_watching();
    return {};
}

// spec: elastic-dvm-spec.txt, "No requester, no directed event": a node Slurm takes away is a size
// change nobody asked for. Outside elastic mode a node lost is a daemon lost, as ever. With
// autoscaling the first look is made at once, so the autoscaler knows what Slurm could lend before
// the first job arrives.
void SlurmModule::start_watching()
{
    if (options_.watch_interval <= 0 || !rt().elastic().enabled()) return;
    watch_timer_ = runtime::LoopTimer(rt().loop(), [this] { look_at_node_states(); });
    watch_timer_.arm_periodic(std::chrono::seconds(options_.watch_interval));
    if (rt().settings().autoscale) look_at_node_states();
}

bool SlurmModule::run_sinfo(Look& look, std::vector<std::string> args, const char* what,
                            std::function<void(const std::vector<std::string>&)> done)
{
    if (look.sinfo) return false;  // the last look has not answered yet
    runtime::ChildProcess::Spec spec;
    spec.argv = {options_.sinfo, "--noheader", "--Node"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    look.sinfo = std::make_unique<runtime::ChildProcess>();
    look.lines.clear();
    Look* l = &look;
    Status st = look.sinfo->start(
        rt().loop().base(), spec, [l](const std::string& line) { l->lines.emplace_back(util::trim(line)); },
        [this, l, what, done = std::move(done)](int status) {
            if (status == 0) {
                done(l->lines);
            } else {
                verbose()(1, "slurm: cannot look at {}: sinfo {}: {}", what, runtime::ChildProcess::describe(status),
                          l->sinfo->tail());
            }
            rt().loop().post([l] { l->sinfo.reset(); });
        });
    if (!st) {
        verbose()(1, "slurm: cannot look at {}: {}", what, st.message());
        look.sinfo.reset();
        return false;
    }
    return true;
}

void SlurmModule::look_at_node_states()
{
    run_sinfo(unusable_look_, {"--states=drain,down,fail", "--format=%N"}, "node states",
              [this](const std::vector<std::string>& lines) { nodes_unusable(lines); });
    if (!rt().settings().autoscale) return;
    std::vector<std::string> args{"--states=idle", "--format=%N %c"};
    // Only the partition the companion jobs are asked in can lend.
    const auto& extra = options_.companion.extra_args;
    for (size_t i = 0; i < extra.size(); ++i) {
        if (extra[i].starts_with("--partition=")) args.push_back(extra[i]);
        if ((extra[i] == "-p" || extra[i] == "--partition") && i + 1 < extra.size()) {
            args.push_back("--partition=" + extra[i + 1]);
        }
    }
    uint64_t look = idle_looks_ + 1;
    if (run_sinfo(idle_look_, std::move(args), "idle nodes",
                  [this, look](const std::vector<std::string>& lines) { nodes_idle(lines, look); })) {
        idle_looks_ = look;
    }
}

// Adds a node to an idle list unless it is there already.
static void add_idle(std::vector<std::pair<std::string, int>>& idle, const std::string& name, int cpus)
{
    if (std::none_of(idle.begin(), idle.end(), [&](const auto& n) { return n.first == name; })) {
        idle.emplace_back(name, cpus);
    }
}

// sinfo lists a node once per partition it is in; each is kept once, in sinfo's order.
void SlurmModule::nodes_idle(const std::vector<std::string>& lines, uint64_t look)
{
    std::vector<std::pair<std::string, int>> idle;
    for (const auto& line : lines) {
        auto words = util::split(line, ' ', true);
        auto cpus = words.size() == 2 ? util::parse_int(words[1]) : std::nullopt;
        if (!cpus) {
            verbose()(1, "slurm: sinfo's idle-node line '{}' is not '<node> <cpus>': ignored", line);
            continue;
        }
        add_idle(idle, words[0], static_cast<int>(*cpus));
    }
    // Nodes given back before this look started are in its answer if still idle; those given back
    // while it ran are kept.
    std::erase_if(given_back_, [look](const auto& entry) { return entry.second.second < look; });
    for (const auto& [name, back] : given_back_) add_idle(idle, name, back.first);
    if (!idle_nodes_ || *idle_nodes_ != idle) {
        std::vector<std::string> text;
        for (const auto& [name, cpus] : idle) text.push_back(fmt::format("{} ({} CPUs)", name, cpus));
        verbose()(5, "slurm: Slurm has {} idle node(s){}{}", idle.size(), idle.empty() ? "" : ": ",
                  util::join(text, ", "));
    }
    idle_nodes_ = std::move(idle);
}

// A node this module gave back is idle for Slurm as soon as its companion job has ended: lendable
// again at once, not only after the next look.
void SlurmModule::note_idle(const std::string& node, int cpus)
{
    if (!idle_nodes_) return;
    given_back_[node] = {cpus, idle_looks_};
    add_idle(*idle_nodes_, node, cpus);
}

// A companion job asked with --exclusive is given the whole node: its slots are the node's CPUs.
// Otherwise Slurm decides, and the slots are left unstated.
bool SlurmModule::lends_whole_nodes() const
{
    const auto& extra = options_.companion.extra_args;
    return std::any_of(extra.begin(), extra.end(), [](const std::string& a) { return a.starts_with("--exclusive"); });
}

std::optional<std::vector<int>> SlurmModule::lendable_slots() noexcept
{
    if (job_id_.empty() || !idle_nodes_) return std::nullopt;
    // Nodes a grow in progress has been granted are named; the others it waits for are some of
    // the idle ones, so as many are left off the end.
    std::set<std::string> taken;
    size_t unnamed = 0;
    for (const auto& [id, grow] : grows_) {
        for (const auto& job : grow->jobs) {
            if (job->node().empty()) {
                ++unnamed;
            } else {
                taken.insert(job->node());
            }
        }
    }
    const runtime::NodePool& pool = rt().pool();
    const bool whole = lends_whole_nodes();
    std::vector<int> slots;
    for (const auto& [name, cpus] : *idle_nodes_) {
        const runtime::Node* node = pool.find(name);
        if ((node && node->state != runtime::NodeState::down) || companions_.count(name) || taken.count(name)) continue;
        slots.push_back(whole ? cpus : 0);
    }
    slots.resize(slots.size() - std::min(unnamed, slots.size()));
    return slots;
}

void SlurmModule::nodes_unusable(const std::vector<std::string>& names)
{
    runtime::NodePool& pool = rt().pool();
    std::vector<std::string> leaving;
    for (const auto& name : names) {
        const runtime::Node* node = std::as_const(pool).find(name);
        if (!node || node->ras_component != kComponentName || !node->daemon_launched) continue;
        if (node->state != runtime::NodeState::up || pushed_out_.count(name)) continue;
        leaving.push_back(name);
        pushed_out_.insert(name);
    }
    if (leaving.empty()) return;
    output::warning("Slurm has drained or lost node(s) {}; they leave the DVM", util::join(leaving, ", "));
    ModifyResult result{{}, "", {}, leaving};
    base::push(kComponentName, std::move(result), pool);
}

// libslurm loads its own plugins (auth/munge, ...), which look for libslurm's symbols globally;
// this component was loaded with RTLD_LOCAL, so libslurm is made global first. Without that the
// first RPC ends the process with "undefined symbol: slurm_conf".
static bool make_libslurm_global()
{
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&slurm_init), &info) == 0 || !info.dli_fname) return false;
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
}

// The cluster's node names, so that a grow naming nodes is taken only when they are Slurm's.
// libslurm ends the process on a missing configuration, so it is asked only when one is there.
void SlurmModule::load_cluster_nodes()
{
    const char* conf = env("SLURM_CONF");
    std::string path = conf ? conf : "/etc/slurm/slurm.conf";
    if (access(path.c_str(), R_OK) != 0) {
        verbose()(1, "slurm: no readable Slurm configuration at {}: a grow naming nodes is left to other components",
                  path);
        return;
    }
    if (!make_libslurm_global()) {
        verbose()(1, "slurm: cannot make libslurm's symbols global ({}): a grow naming nodes is left to other "
                     "components", [] { const char* e = dlerror(); return e ? e : "no reason given"; }());
        return;
    }
    slurm_init(nullptr);
    node_info_msg_t* info = nullptr;
    if (slurm_load_node(0, &info, SHOW_ALL) != SLURM_SUCCESS || !info) {
        verbose()(1, "slurm: cannot list Slurm's nodes ({}): a grow naming nodes is left to other components",
                  slurm_strerror(slurm_get_errno()));
        return;
    }
    for (uint32_t i = 0; i < info->record_count; ++i) {
        if (info->node_array[i].name) cluster_nodes_.insert(info->node_array[i].name);
    }
    slurm_free_node_info_msg(info);
    verbose()(5, "slurm: the cluster has {} node(s)", cluster_nodes_.size());
}

Status SlurmModule::modify(const runtime::AllocationRequest& request, RequestCompletion&& completion)
{
    if (job_id_.empty()) return pass("not inside a Slurm job");
    if (request.directive != runtime::AllocDirective::new_allocation &&
        request.directive != runtime::AllocDirective::extend) {
        return pass("ras/slurm grows the DVM; releases come back through shrink_complete");
    }
    if (!request.node_list.empty()) {
        std::vector<std::string> names;
        for (const auto& entry : request.node_list) {
            if (Status st = util::expand_hostlist(entry, names); !st) return pass("not a plain node list");
        }
        for (const auto& name : names) {
            if (!cluster_nodes_.count(name)) return pass(fmt::format("{} is not a Slurm node", name));
        }
        return start_grow(request, std::move(completion), names, names.size());
    }
    if (request.num_nodes > 0) return start_grow(request, std::move(completion), {}, request.num_nodes);
    return pass("the request names no node and no number of nodes");
}

Status SlurmModule::start_grow(const runtime::AllocationRequest& request, RequestCompletion&& completion,
                               const std::vector<std::string>& names, size_t count)
{
    auto grow = std::make_unique<Grow>();
    grow->id = ++next_grow_;
    grow->request = request;
    grow->completion = std::move(completion);
    uint64_t id = grow->id;
    CompanionOptions companion = options_.companion;
    companion.job_name = fmt::format("prte-{}-grow", job_id_);
    grows_[id] = std::move(grow);
    Grow& g = *grows_[id];
    for (size_t i = 0; i < count; ++i) {
        auto job = std::make_unique<CompanionJob>();
        Status st = job->start(
            rt().loop().base(), companion, names.empty() ? "" : names[i],
            [this, id](CompanionJob&) { grow_job_granted(id); },
            [this, id](CompanionJob& j, const std::string& why) { grow_job_ended(id, j, why); });
        g.jobs.push_back(std::move(job));
        if (!st) {
            fail_grow(id, fmt::format("cannot run {}: {}", companion.salloc, st.message()));
            return {};
        }
    }
    verbose()(5, "slurm: grow {}: asking Slurm for {} node(s){} (companion jobs, at most {} s)", id, count,
              names.empty() ? "" : " " + util::join(names, ","), companion.immediate_seconds);
    // salloc --immediate answers within its timeout; this is the backstop should it not.
    // Owned by the grow: it goes when the grow ends, either way.
    g.timer = runtime::LoopTimer(rt().loop(), [this, id, seconds = companion.immediate_seconds] {
        fail_grow(id, fmt::format("Slurm did not answer within {} s (ras_slurm_grow_timeout + 10)", seconds));
    });
    g.timer.arm(std::chrono::seconds(companion.immediate_seconds + 10));
    return {};
}

void SlurmModule::grow_job_granted(uint64_t grow_id)
{
    auto it = grows_.find(grow_id);
    if (it == grows_.end()) return;
    Grow& g = *it->second;
    if (++g.granted < g.jobs.size()) return;
    finish_grow(grow_id);
}

void SlurmModule::finish_grow(uint64_t grow_id)
{
    auto it = grows_.find(grow_id);
    std::unique_ptr<Grow> g = std::move(it->second);
    grows_.erase(it);
    g->timer.cancel();
    std::string alloc_id = g->request.alloc_id;
    if (alloc_id.empty()) alloc_id = fmt::format("slurm-{}", ++allocations_granted_);
    ModifyResult result{{}, alloc_id, {}, {}};
    std::vector<std::string> granted;
    // Slurm grants them in any order; the DVM lists them by name.
    std::sort(g->jobs.begin(), g->jobs.end(),
              [](const auto& a, const auto& b) { return a->node() < b->node(); });
    for (auto& job : g->jobs) {
        runtime::Node node;
        node.name = job->node();
        if (job->cpus() > 0) {
            node.slots = job->cpus();
            node.slots_given = true;
        }
        node.ras_component = kComponentName;
        node.alloc_id = alloc_id;
        node.scheduler_job = job->job_id();
        result.nodes_added.push_back(node);
        granted.push_back(fmt::format("{} (job {})", job->node(), job->job_id()));
        std::string name = job->node();
        // From now on its end is a held node's end.
        job->on_end([this, name](CompanionJob&, const std::string& why) { companion_ended(name, why); });
        companions_[name] = std::move(job);
    }
    verbose()(5, "slurm: grow {} granted as allocation {}: {}", grow_id, alloc_id, util::join(granted, ", "));
    g->completion.complete(std::move(result));
}

void SlurmModule::grow_job_ended(uint64_t grow_id, CompanionJob& job, const std::string& why)
{
    if (grows_.count(grow_id)) {
        fail_grow(grow_id, why);
        return;
    }
    retire(job);
}

// Refused: every job of the grow is given back (a pending salloc is cancelled) and the request
// fails with what Slurm said; nothing in the DVM changed.
void SlurmModule::fail_grow(uint64_t grow_id, const std::string& why)
{
    auto it = grows_.find(grow_id);
    if (it == grows_.end()) return;
    std::unique_ptr<Grow> g = std::move(it->second);
    grows_.erase(it);
    g->timer.cancel();
    size_t asked = g->jobs.size();
    // The jobs live on until each salloc has ended (this may run inside one's own callback).
    for (auto& job : g->jobs) {
        bool ended = job->ended();
        if (!ended) job->release();
        retired_.push_back(std::move(job));
        if (ended) retire(*retired_.back());
    }
    verbose()(5, "slurm: grow {} refused: {}", grow_id, why);
    g->completion.complete({Status(Errc::out_of_resource,
                                   fmt::format("Slurm cannot grant {} node(s) now: {}", asked, why)),
                            g->request.alloc_id, {}, {}});
}

// A job that was given back has ended: forget it, from a posted task (this runs inside its callback).
void SlurmModule::retire(CompanionJob& job)
{
    CompanionJob* gone = &job;
    rt().loop().post([this, gone] {
        std::erase_if(retired_, [gone](const std::unique_ptr<CompanionJob>& j) { return j.get() == gone; });
    });
}

void SlurmModule::companion_ended(const std::string& node, const std::string& why)
{
    auto it = companions_.find(node);
    if (it == companions_.end()) return;
    if (it->second->released()) {
        verbose()(5, "slurm: node {} is back with Slurm (job {} ended)", node, it->second->job_id());
        note_idle(node, it->second->cpus());
    } else {
        // Slurm ended it (scancel, a time limit, a node failure): its daemon goes with it and
        // leaves the DVM through the daemon-loss path.
        output::warning("Slurm ended job {} holding node {} ({}); the node leaves the DVM", it->second->job_id(), node,
                        why);
    }
    retired_.push_back(std::move(it->second));
    companions_.erase(it);
    retire(*retired_.back());
}

void SlurmModule::give_back(const std::vector<std::string>& names, const runtime::NodePool& pool)
{
    std::vector<std::string> own_leaving;
    for (const auto& name : names) {
        const runtime::Node* node = pool.find(name);
        if (!node || node->ras_component != kComponentName) continue;
        pushed_out_.erase(node->name);  // it may be granted again, and drained again
        auto it = companions_.find(node->name);
        if (it != companions_.end()) {
            verbose()(5, "slurm: giving node {} back (ending companion job {})", node->name, it->second->job_id());
            it->second->release();
        } else if (std::find(own_nodes_.begin(), own_nodes_.end(), node->name) != own_nodes_.end()) {
            own_leaving.push_back(node->name);
        }
    }
    if (!own_leaving.empty()) shrink_own_job(own_leaving);
}

// An original node leaves: the DVM's own job is shrunk to the nodes it still has. Slurm keeps a job
// at one node at least, and without slurmdbd resizes a job only once: either limit is reported,
// and the node then stays in the job (unused) until the job ends.
void SlurmModule::shrink_own_job(const std::vector<std::string>& leaving)
{
    std::vector<std::string> remaining;
    for (const auto& n : own_nodes_) {
        if (std::find(leaving.begin(), leaving.end(), n) == leaving.end()) remaining.push_back(n);
    }
    if (remaining.empty()) {
        output::warning("Slurm job {} keeps its last node(s) {} until it ends (a job cannot shrink to no node)", job_id_,
                        util::join(leaving, ","));
        return;
    }
    runtime::ChildProcess::Spec spec;
    spec.argv = {options_.scontrol, "update", "JobId=" + job_id_, "NodeList=" + util::compress_hostlist(remaining)};
    // scontrol writes slurm_job_<id>_resize.{sh,csh} into its working directory.
    spec.cwd = rt().identity().session_dir.empty() ? "/tmp" : rt().identity().session_dir;
    auto command = std::make_unique<runtime::ChildProcess>();
    runtime::ChildProcess* raw = command.get();
    std::string what = fmt::format("shrinking Slurm job {} to {} (giving back {})", job_id_,
                                   util::compress_hostlist(remaining), util::join(leaving, ","));
    Status st = command->start(rt().loop().base(), spec, nullptr, [this, raw, what](int status) {
        if (status != 0) {
            output::warning("{} failed: scontrol {}: {}", what, runtime::ChildProcess::describe(status), raw->tail());
        } else {
            verbose()(5, "slurm: {}: done", what);
        }
        rt().loop().post([this, raw] {
            std::erase_if(commands_, [raw](const std::unique_ptr<runtime::ChildProcess>& c) { return c.get() == raw; });
        });
    });
    if (!st) {
        output::warning("{} failed: {}", what, st.message());
        return;
    }
    commands_.push_back(std::move(command));
    own_nodes_ = remaining;
}

void SlurmModule::shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool) noexcept
{
    give_back(campaign.target_nodes, pool);
}

void SlurmModule::grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool) noexcept
{
    give_back(nodes, pool);
}

void SlurmModule::release_allocation(const std::string& alloc_id) noexcept
{
    std::vector<std::string> names;
    for (const runtime::Node* node : std::as_const(rt().pool()).nodes()) {
        if (node->alloc_id == alloc_id && companions_.count(node->name)) names.push_back(node->name);
    }
    give_back(names, rt().pool());
}

}  // namespace prte::ras::slurm
