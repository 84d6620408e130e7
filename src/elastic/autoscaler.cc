// The autoscaler's decisions (autoscaler.h): who waits and why, when to grow and by how much, when
// a borrowed node goes back. Every decision is a line at ras_base_verbose 2.
#include "elastic/autoscaler.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "elastic/admission.h"
#include "elastic/campaign_engine.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/ras/base/ras_base.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "runtime/hostfile.h"
#include "util/strings.h"

namespace prte::elastic {
namespace {

using runtime::JobPtr;
using runtime::JobState;
using Clock = std::chrono::steady_clock;

const output::VerboseStream& verbose() { return ras::base::framework().verbose(); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Processes the job asks for: -n per app, one for an app without -n (it takes one per free slot,
// and fails only when there is none).
int64_t job_need(const runtime::Job& job)
{
    int64_t n = 0;
    for (const auto& app : job.apps) n += app.num_procs > 0 ? app.num_procs : 1;
    return n;
}

// Nodes a job needs whatever their slots: ppr:N:node with a process count (-N N, --npernode N)
// runs N on each of ceil(np / N) nodes; 0 when its mapping asks for no number of nodes (ppr
// without a count takes every node there is, so it never waits for more).
int64_t nodes_needed(const runtime::Job& job)
{
    const runtime::MappingPolicy& m = job.mapping;
    if (m.by != runtime::MapBy::ppr || m.ppr_object != runtime::MapBy::node || m.ppr_count <= 0) return 0;
    int64_t np = 0;
    for (const auto& app : job.apps) {
        if (app.num_procs <= 0) return 0;
        np += app.num_procs;
    }
    return (np + m.ppr_count - 1) / m.ppr_count;
}

// A job restricted to nodes it names waits only for those: nodes borrowed by count are not them.
bool names_hosts(const runtime::Job& job)
{
    return std::any_of(job.apps.begin(), job.apps.end(),
                       [](const runtime::AppContext& app) { return !app.hosts.empty() || !app.hostfile.empty(); });
}

// The hosts a job names with --host that the DVM does not have, once each, in order; empty when it
// names them in a hostfile (not borrowed for: the file may be the user's own list) or has them all.
std::vector<std::string> missing_named_hosts(const runtime::Job& job, runtime::NodePool& pool)
{
    std::vector<std::string> missing;
    for (const auto& app : job.apps) {
        if (!app.hostfile.empty()) return {};
        std::vector<runtime::Node> named;
        if (!runtime::parse_host_list(app.hosts, named)) return {};
        for (const auto& n : named) {
            if (runtime::names_local_node(n.name) || pool.find(n.name)) continue;
            if (std::find(missing.begin(), missing.end(), n.name) == missing.end()) missing.push_back(n.name);
        }
    }
    return missing;
}

bool usable(const runtime::Node& node)
{
    return node.daemon_launched && node.state == runtime::NodeState::up && !node.simulated;
}

bool alive(const JobPtr& job) { return job && runtime::is_alive(job->state) && !job->aborting; }

}  // namespace

Autoscaler::Autoscaler(runtime::Runtime& rt, CampaignEngine& engine)
    : rt_(rt), engine_(engine), batch_(rt.loop(), [this] { plan(); }), idle_tick_(rt.loop(), [this] { check_idle(); })
{
    if (!enabled()) return;
    // A quarter of the timeout, so a node goes back at most a quarter late; never busier than 10/s.
    auto tick = std::chrono::duration_cast<std::chrono::milliseconds>(rt_.settings().autoscale_idle_timeout) / 4;
    idle_tick_.arm_periodic(std::clamp(tick, std::chrono::milliseconds(100), std::chrono::milliseconds(1000)));
    verbose()(2, "autoscale: on; at most {} borrowed node(s), {} kept warm, idle ones back after {} s",
              rt_.settings().autoscale_max_nodes ? std::to_string(rt_.settings().autoscale_max_nodes) : "the lender's",
              rt_.settings().autoscale_min_nodes, rt_.settings().autoscale_idle_timeout.count());
}

Autoscaler::~Autoscaler() = default;

bool Autoscaler::enabled() const { return rt_.settings().autoscale && rt_.elastic().enabled(); }

int64_t Autoscaler::free_slots() const
{
    int64_t n = 0;
    for (const runtime::Node* node : std::as_const(rt_.pool()).nodes()) {
        if (usable(*node)) n += node->available_slots();
    }
    return n;
}

int64_t Autoscaler::usable_nodes() const
{
    int64_t n = 0;
    for (const runtime::Node* node : std::as_const(rt_.pool()).nodes()) n += usable(*node) ? 1 : 0;
    return n;
}

int64_t Autoscaler::total_slots() const
{
    int64_t n = 0;
    for (const runtime::Node* node : std::as_const(rt_.pool()).nodes()) {
        if (usable(*node)) n += node->slots;
    }
    return n;
}

uint64_t Autoscaler::borrowed_count() const
{
    uint64_t n = borrowed_.size();
    for (const auto& [id, g] : grows_) n += g.nodes;
    return n;
}

int64_t Autoscaler::Borrowable::slots_of(uint64_t k) const
{
    int each = k < lendable_slots.size() ? lendable_slots[k] : 0;
    return each > 0 ? each : fallback;
}

Autoscaler::Borrowable Autoscaler::borrowable() const
{
    const auto& s = rt_.settings();
    const uint64_t borrowed = borrowed_count();
    Borrowable b;
    if (s.autoscale_max_nodes > 0) {
        const auto cap = static_cast<uint64_t>(s.autoscale_max_nodes);
        b.bounded = true;
        b.nodes = cap - std::min(cap, borrowed);
        b.limit = fmt::format("prte_autoscale_max_nodes ({})", cap);
    }
    // A cap above what the lender has is no promise: the plan can ask only for what it has.
    if (auto lendable = ras::base::lendable()) {
        if (!b.bounded || lendable->slots.size() < b.nodes) {
            b.bounded = true;
            b.nodes = lendable->slots.size();
            b.limit = fmt::format("the {} node(s) its lender can lend", borrowed + lendable->slots.size());
        }
        b.lendable_slots = std::move(lendable->slots);
    }
    // Unstated slot counts: as many as the DVM's nodes have, on average.
    if (rt_.pool().size() > 0) b.fallback = std::max<int64_t>(1, total_slots() / static_cast<int64_t>(rt_.pool().size()));
    return b;
}

void Autoscaler::enqueue(const JobPtr& job, runtime::WaitReason why, std::string reason, bool front)
{
    // A job whose turn came back to wait (`front`) has said so already.
    begin_wait(rt_, *job, why, reason, !front);
    WaitingJob w{job, std::move(reason), Clock::now()};
    if (front) {
        waiting_.push_front(std::move(w));
    } else {
        waiting_.push_back(std::move(w));
    }
}

bool Autoscaler::hold_for_turn(const JobPtr& job)
{
    if (!enabled() || job->is_daemon_job) return false;
    if (admitting_ == job) {
        // Its map runs now; once it has, the next may have its turn (unless it came back to wait).
        rt_.loop().post([this, job] { after_admit(job); });
        return false;
    }
    prune();
    if (waiting_.empty() && !admitting_) return false;
    if (may_pass(*job)) {
        for (auto& w : waiting_) ++w.passes;
        verbose()(2, "autoscale: job {} may map before the {} job(s) waiting: it fits in the slots they do not need",
                  job->nspace, waiting_.size());
        return false;
    }
    enqueue(job, runtime::WaitReason::autoscaler_turn,
            fmt::format("waiting its turn: {} earlier job(s) wait for nodes", waiting_.size() + (admitting_ ? 1 : 0)),
            false);
    verbose()(2, "autoscale: job {} waits its turn behind {} earlier job(s)", job->nspace, waiting_.size() - 1);
    return true;
}

bool Autoscaler::hold_for_slots(const JobPtr& job, Status& why)
{
    if (!enabled() || job->is_daemon_job) return false;
    if (why.code() == Errc::not_found && names_hosts(*job)) return hold_for_hosts(job, why);
    if (why.code() != Errc::out_of_resource) return false;
    bool was_admitted = admitting_ == job;
    if (was_admitted) admitting_ = nullptr;
    if (names_hosts(*job)) return false;
    if (no_grow_helps(*job, why)) return false;
    // Could it fit even with every node the autoscaler may borrow? If not, refused at once.
    const Borrowable more = borrowable();
    if (more.bounded) {
        int64_t at_cap = total_slots();
        // Nodes of grows in progress are counted among the borrowed but are not usable yet.
        int64_t nodes_at_cap = usable_nodes() + static_cast<int64_t>(more.nodes);
        for (const auto& [id, g] : grows_) {
            at_cap += g.slots;
            nodes_at_cap += static_cast<int64_t>(g.nodes);
        }
        for (uint64_t k = 0; k < more.nodes; ++k) at_cap += more.slots_of(k);
        auto refuse = [&](const char* what, int64_t need, int64_t have, const char* fewer) {
            why = {Errc::out_of_resource,
                   fmt::format("job {} needs {} {}(s) and cannot wait for them: even with {} borrowed the DVM "
                               "would have {} {}(s); raise prte_autoscale_max_nodes or ask for fewer processes{} "
                               "(first: {})",
                               job->nspace, need, what, more.limit, have, what, fewer, why.message())};
            verbose()(2, "autoscale: {}", why.message());
            return false;
        };
        if (nodes_needed(*job) > nodes_at_cap) return refuse("node", nodes_needed(*job), nodes_at_cap, " per node");
        if (job_need(*job) > at_cap) return refuse("slot", job_need(*job), at_cap, "");
    }
    prune();
    enqueue(job, runtime::WaitReason::autoscaler_nodes,
            fmt::format("waiting for nodes: needs {} slot(s), {} free", job_need(*job), free_slots()), was_admitted);
    verbose()(2, "autoscale: job {} waits for nodes: needs {} slot(s), {} free; {} job(s) waiting", job->nspace,
              job_need(*job), free_slots(), waiting_.size());
    schedule_plan();
    return true;
}

bool Autoscaler::may_pass(const runtime::Job& job) const
{
    const auto& s = rt_.settings();
    if (s.admission_strict || names_hosts(job)) return false;
    int64_t needed = 0;
    for (const auto& w : waiting_) {
        if (w.passes >= s.admission_max_passes) return false;
        if (!names_hosts(*w.job)) needed += job_need(*w.job);
    }
    if (admitting_) needed += job_need(*admitting_);
    return job_need(job) <= free_slots() - std::min(free_slots(), needed);
}

bool Autoscaler::no_grow_helps(runtime::Job& job, Status& why)
{
    if (job_need(job) > free_slots() || nodes_needed(job) > usable_nodes()) return false;
    Status idle = rmaps::base::fits_when_idle(job, rt_.pool());
    if (idle) return false;
    why = {Errc::out_of_resource,
           fmt::format("job {} cannot wait for nodes: the DVM has the {} slot(s) it asks for, yet it does not fit even "
                       "with nothing else running, so no more nodes of this kind can help: {}",
                       job.nspace, job_need(job), idle.message())};
    verbose()(2, "autoscale: {}", why.message());
    return true;
}

// A job naming hosts (--host) the DVM lacks: it waits while the DVM borrows exactly those from its
// lender, by name (as palloc -w would); a lender that has not got them refuses the grow, and the job
// ends with its reason.
bool Autoscaler::hold_for_hosts(const JobPtr& job, Status& why)
{
    std::vector<std::string> missing = missing_named_hosts(*job, rt_.pool());
    if (missing.empty()) return false;
    bool was_admitted = admitting_ == job;
    if (was_admitted) admitting_ = nullptr;
    std::vector<std::string> asking;
    for (const auto& name : missing) {
        if (!requested_hosts_.count(name)) asking.push_back(name);
    }
    prune();
    enqueue(job, runtime::WaitReason::autoscaler_nodes,
            fmt::format("waiting for host(s) {} to join the DVM", util::join(missing, ", ")), was_admitted);
    verbose()(2, "autoscale: job {} waits for the host(s) it names: {} ({})", job->nspace, util::join(missing, ", "),
              why.message());
    if (asking.empty()) return true;  // already asked for, by a grow in progress
    runtime::AllocationRequest request;
    request.directive = runtime::AllocDirective::new_allocation;
    request.node_list = asking;
    request.alloc_id = rt_.elastic().next_alloc_id();
    std::string alloc_id = request.alloc_id;
    grows_[alloc_id] = {asking.size(), 0, {job->nspace}};
    for (const auto& name : asking) requested_hosts_.insert(name);
    hosts_of_grow_[alloc_id] = asking;
    verbose()(2, "autoscale: growing onto {} ({}) for job {}", util::join(asking, ", "), alloc_id, job->nspace);
    engine_.submit(std::move(request), [this, alloc_id](const Status& st, const std::string&) {
        if (st) return;
        grow_failed(alloc_id, st.message());
    });
    return true;
}

// Jobs that do not fit gather for prte_autoscale_batch_ms, then share one grow.
void Autoscaler::schedule_plan()
{
    if (batch_.armed()) return;
    batch_.arm(rt_.settings().autoscale_batch);
}

void Autoscaler::prune()
{
    std::erase_if(waiting_, [](const WaitingJob& w) { return !alive(w.job); });
    if (admitting_ && !alive(admitting_)) admitting_ = nullptr;
}

// How many nodes the jobs waiting need beyond the free slots and the grows already asked for,
// within the cap; one grow for all of them.
void Autoscaler::plan()
{
    prune();
    if (!enabled() || waiting_.empty() || rt_.shutting_down()) return;
    int64_t need = 0;
    std::vector<std::string> jobs;
    for (const auto& w : waiting_) {
        if (names_hosts(*w.job)) continue;  // waits for the hosts it names, asked for by name
        need += job_need(*w.job);
        jobs.push_back(w.job->nspace);
    }
    int64_t coming = 0;
    int64_t nodes_coming = 0;
    for (const auto& [id, g] : grows_) {
        coming += g.slots;
        nodes_coming += static_cast<int64_t>(g.nodes);
    }
    int64_t deficit = need - free_slots() - coming;
    // -N / ppr:N:node jobs need nodes, not only slots: the one needing most sets how many more.
    int64_t node_deficit = 0;
    for (const auto& w : waiting_) {
        if (!names_hosts(*w.job)) node_deficit = std::max(node_deficit, nodes_needed(*w.job) - usable_nodes() - nodes_coming);
    }
    if (deficit <= 0 && node_deficit <= 0) {
        verbose()(2, "autoscale: {} job(s) waiting need {} slot(s): {} free and {} coming with grows in progress; no "
                  "grow",
                  waiting_.size(), need, free_slots(), coming);
        return;
    }
    const Borrowable more = borrowable();
    const uint64_t room = more.bounded ? more.nodes : std::numeric_limits<uint64_t>::max();
    uint64_t nodes = 0;
    int64_t slots = 0;
    while ((slots < deficit || static_cast<int64_t>(nodes) < node_deficit) && nodes < room) slots += more.slots_of(nodes++);
    if (nodes == 0) {
        verbose()(2, "autoscale: {} job(s) waiting need {} more slot(s), but the DVM has borrowed all it may ({} "
                  "node(s); {}): they wait for slots to free",
                  waiting_.size(), deficit, borrowed_count(), more.limit);
        for (auto& w : waiting_) {
            w.reason = fmt::format("waiting for slots to free: needs {} slot(s); the DVM has borrowed all it may",
                                   job_need(*w.job));
        }
        return;
    }
    runtime::AllocationRequest request;
    request.directive = runtime::AllocDirective::new_allocation;
    request.num_nodes = nodes;
    request.alloc_id = rt_.elastic().next_alloc_id();
    std::string alloc_id = request.alloc_id;
    grows_[alloc_id] = {nodes, slots, jobs};
    for (auto& w : waiting_) w.reason = fmt::format("waiting for nodes: grow {} in progress", alloc_id);
    verbose()(2, "autoscale: growing by {} node(s) ({}) for job(s) {}: they need {} slot(s), {} free, {} coming{}", nodes,
              alloc_id, util::join(jobs, ", "), need, free_slots(), coming,
              node_deficit > 0 ? fmt::format("; {} more node(s) for -N/ppr", node_deficit) : std::string());
    engine_.submit(std::move(request), [this, alloc_id](const Status& st, const std::string&) {
        if (st) return;
        // Refused in phase one (the lender has too few hosts, say): the jobs counted on it end.
        grow_failed(alloc_id, st.message());
    });
}

void Autoscaler::after_admit(const JobPtr& job)
{
    if (admitting_ != job) return;  // it came back to wait
    admitting_ = nullptr;
    admit_next();
}

void Autoscaler::admit_next()
{
    prune();  // first: a job ended while it had its turn gives the turn up
    if (!enabled() || admitting_ || rt_.elastic().fence() != 0 || waiting_.empty()) return;
    admitting_ = waiting_.front().job;
    waiting_.pop_front();
    end_wait(*admitting_);
    verbose()(2, "autoscale: job {} may map now", admitting_->nspace);
    rt_.state().activate_job_state(admitting_, JobState::map);
}

void Autoscaler::slots_freed(const runtime::Job& job)
{
    if (!enabled()) return;
    for (const auto& proc : job.procs) {
        if (proc->node && borrowed_.count(proc->node->name)) borrowed_[proc->node->name] = Clock::now();
    }
    if (!waiting_.empty()) rt_.loop().post([this] { admit_next(); });
}

void Autoscaler::end_waiting(const std::vector<std::string>& nspaces, const std::string& why)
{
    std::set<std::string> ending(nspaces.begin(), nspaces.end());
    std::vector<JobPtr> jobs;
    std::erase_if(waiting_, [&](const WaitingJob& w) {
        if (!ending.count(w.job->nspace)) return false;
        jobs.push_back(w.job);
        return true;
    });
    for (const JobPtr& job : jobs) {
        end_wait(*job);
        verbose()(2, "autoscale: job {} ends: {}", job->nspace, why);
        plm::base::terminate_job(job, fmt::format("job {} was waiting for the DVM to grow and is aborted: {}", job->nspace, why),
                                 JobState::failed_to_launch, 1);
    }
}

void Autoscaler::grow_completed(const runtime::GrowCampaign& c)
{
    auto it = grows_.find(c.alloc_id);
    if (it == grows_.end()) return;
    grows_.erase(it);
    forget_hosts_of(c.alloc_id);
    for (const auto& name : c.target_nodes) borrowed_[name] = Clock::now();
    verbose()(2, "autoscale: grow {} complete: borrowed node(s) {}; {} borrowed in all", c.alloc_id,
              util::join(c.target_nodes, ", "), borrowed_.size());
    // The fence coming down admits the first waiting job (CampaignEngine::fence_release).
}

void Autoscaler::grow_failed(const std::string& alloc_id, const std::string& why)
{
    auto it = grows_.find(alloc_id);
    if (it == grows_.end()) return;
    PendingGrow g = std::move(it->second);
    grows_.erase(it);
    forget_hosts_of(alloc_id);
    verbose()(2, "autoscale: grow {} failed: {}; ending the job(s) waiting on it: {}", alloc_id, why,
              util::join(g.jobs, ", "));
    end_waiting(g.jobs, fmt::format("the DVM could not grow for it (allocation {}): {}", alloc_id, why));
    if (admitting_ && std::find(g.jobs.begin(), g.jobs.end(), admitting_->nspace) != g.jobs.end()) admitting_ = nullptr;
    if (!waiting_.empty()) schedule_plan();
}

void Autoscaler::forget_hosts_of(const std::string& alloc_id)
{
    auto it = hosts_of_grow_.find(alloc_id);
    if (it == hosts_of_grow_.end()) return;
    for (const auto& name : it->second) requested_hosts_.erase(name);
    hosts_of_grow_.erase(it);
}

void Autoscaler::shrink_completed(const runtime::ShrinkCampaign& c)
{
    for (const auto& name : c.target_nodes) {
        if (releasing_.erase(name)) verbose()(2, "autoscale: node {} is back with its lender", name);
        borrowed_.erase(name);
    }
}

void Autoscaler::shrink_failed(const runtime::ShrinkCampaign& c)
{
    for (const auto& name : c.target_nodes) {
        if (releasing_.erase(name)) {
            verbose()(2, "autoscale: giving back node {} failed; it stays borrowed", name);
            borrowed_[name] = Clock::now();
        }
    }
}

// Idle borrowed nodes go back, longest idle first, never below prte_autoscale_min_nodes, never
// while a job that could use them waits or maps, never one with a process.
void Autoscaler::check_idle()
{
    if (!enabled() || rt_.shutting_down()) return;
    const auto now = Clock::now();
    const auto& s = rt_.settings();
    std::vector<std::pair<Clock::time_point, runtime::Node*>> idle;
    for (auto it = borrowed_.begin(); it != borrowed_.end();) {
        runtime::Node* node = rt_.pool().find(it->first);
        if (!node || !node->daemon_launched || node->state == runtime::NodeState::down) {
            releasing_.erase(it->first);  // gone by another way (a user's release, a lost daemon)
            it = borrowed_.erase(it);
            continue;
        }
        if (node->slots_inuse > 0 || node->num_procs > 0 || node->state != runtime::NodeState::up) {
            it->second = now;
        } else if (!releasing_.count(it->first) && node->daemon != 0 && now - it->second >= s.autoscale_idle_timeout) {
            idle.emplace_back(it->second, node);
        }
        ++it;
    }
    prune();
    // Kept while a job that could use it waits or maps; a job waiting for the hosts it names
    // (--host) cannot, and does not keep idle nodes from going back.
    bool wanted = admitting_ != nullptr ||
                  std::any_of(waiting_.begin(), waiting_.end(), [](const WaitingJob& w) { return !names_hosts(*w.job); });
    if (idle.empty() || wanted) return;
    uint64_t keep = static_cast<uint64_t>(s.autoscale_min_nodes);
    uint64_t staying = borrowed_.size() - releasing_.size();
    if (staying <= keep) return;
    std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    idle.resize(std::min<size_t>(idle.size(), staying - keep));
    // One release per allocation: each names the nodes it gives back.
    std::map<std::string, std::vector<std::string>> by_alloc;
    for (const auto& [since, node] : idle) {
        by_alloc[node->alloc_id].push_back(node->name);
        releasing_.insert(node->name);
        verbose()(2, "autoscale: node {} idle for {:.1f} s (prte_autoscale_idle_timeout {} s): giving it back",
                  node->name, std::chrono::duration<double>(now - since).count(), s.autoscale_idle_timeout.count());
    }
    for (auto& [alloc_id, names] : by_alloc) {
        runtime::AllocationRequest request;
        request.directive = runtime::AllocDirective::release;
        request.alloc_id = alloc_id;
        request.node_list = names;
        engine_.submit(std::move(request), [this, names](const Status& st, const std::string&) {
            if (st) return;
            verbose()(2, "autoscale: giving back {} refused: {}", util::join(names, ", "), st.message());
            for (const auto& n : names) releasing_.erase(n);
        });
    }
}

std::vector<Autoscaler::WaitingView> Autoscaler::waiting() const
{
    std::vector<WaitingView> out;
    if (admitting_ && alive(admitting_)) out.push_back({admitting_->nspace, "mapping now (its turn)", 0});
    for (const auto& w : waiting_) {
        if (alive(w.job)) out.push_back({w.job->nspace, w.reason, seconds_since(w.since)});
    }
    return out;
}

std::map<std::string, double> Autoscaler::borrowed_idle() const
{
    std::map<std::string, double> out;
    for (const auto& [name, since] : borrowed_) {
        const runtime::Node* node = std::as_const(rt_.pool()).find(name);
        bool busy = node && (node->slots_inuse > 0 || node->num_procs > 0);
        out[name] = busy ? 0 : seconds_since(since);
    }
    return out;
}

}  // namespace prte::elastic
