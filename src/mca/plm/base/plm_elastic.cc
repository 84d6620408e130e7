#include "mca/plm/base/plm_elastic.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mca/base/param.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_launch.h"
#include "mca/plm/base/plm_messages.h"
#include "mca/ras/base/ras_base.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/hostlist.h"
#include "util/strings.h"

namespace prte::plm::base::elastic {
namespace {

using runtime::AllocDirective;
using runtime::AllocationPhase;
using runtime::JobPtr;
using runtime::JobState;
using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
runtime::ElasticState& state() { return rt().elastic(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }
// Campaigns are logged on both streams the issue names: ras (the request) and plm (the daemons).
const output::VerboseStream& plm_verbose() { return framework().verbose(); }
const output::VerboseStream& ras_verbose() { return ras::base::framework().verbose(); }
const output::VerboseStream& state_verbose() { return rt().state_verbose(); }

std::map<uint64_t, Answer>& answers()
{
    static std::map<uint64_t, Answer> pending;
    return pending;
}

// Jobs held by prte_test_hold_launch until the next campaign starts (tests only).
std::vector<JobPtr>& test_held()
{
    static std::vector<JobPtr> jobs;
    return jobs;
}

Answer take_answer(uint64_t serial)
{
    auto it = answers().find(serial);
    if (it == answers().end()) return {};
    Answer a = std::move(it->second);
    answers().erase(it);
    return a;
}

std::string who(const std::optional<pmix_proc_t>& requester)
{
    if (!requester) return "no requester (a push)";
    return fmt::format("{}.{}", requester->nspace, requester->rank);
}

double elapsed_ms(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

void log_campaign(int level, const std::string& line)
{
    ras_verbose()(level, "{}", line);
    plm_verbose()(level, "{}", line);
}

// Outcomes of allocations that hold no node any more are kept for the last this many, so a DVM
// that grows and shrinks for months stays bounded; an older one is no longer known (NOT_FOUND).
constexpr size_t kFinishedAllocationsKept = 1024;

void set_phase(const std::string& alloc_id, AllocationPhase phase, const std::string& cause = {})
{
    if (alloc_id.empty()) return;
    auto& records = state().allocations();
    records[alloc_id] = {phase, cause};
    static std::deque<std::string> finished;
    if (phase != AllocationPhase::released && phase != AllocationPhase::failed) return;
    finished.push_back(alloc_id);
    while (finished.size() > kFinishedAllocationsKept) {
        const std::string& oldest = finished.front();
        auto it = records.find(oldest);
        bool still_holds_nodes = false;
        for (const runtime::Node* node : std::as_const(rt().pool()).nodes()) {
            still_holds_nodes = still_holds_nodes || (node->alloc_id == oldest && node->daemon_launched);
        }
        if (it != records.end() && !still_holds_nodes &&
            (it->second.phase == AllocationPhase::released || it->second.phase == AllocationPhase::failed)) {
            records.erase(it);
        }
        finished.pop_front();
    }
}

// Phase two: exactly one event to the requester, none without one (spec: "Delivery guarantees").
void tell_requester(const runtime::Campaign& c, bool success, pmix_status_t cause, const std::string& message)
{
    if (!c.requester) return;
    rt().host().notify_allocation_outcome({*c.requester, c.requester_daemon, c.alloc_id, c.req_id, success, cause, message});
}

// What starts a campaign of either kind: its id, who asked, its allocation, the clock.
void open_campaign(runtime::Campaign& c, const runtime::AllocationRequest& request, const std::string& alloc_id)
{
    c.id = state().next_campaign_id();
    c.requester = request.requester;
    c.requester_daemon = request.requester_daemon;
    c.alloc_id = alloc_id;
    c.req_id = request.req_id;
    c.started = std::chrono::steady_clock::now();
}

// "campaign 3 (grow, alloc-1) complete in 10.3 ms: daemon(s) 5,6 on n5, n6 <outcome>, requester ...".
void log_completion(const runtime::Campaign& c, const char* kind, const char* outcome)
{
    log_campaign(5, fmt::format("campaign {} ({}, {}) complete in {:.1f} ms: daemon(s) {} on {} {}, requester {}", c.id,
                                kind, c.alloc_id, elapsed_ms(c.started), fmt::join(c.targets, ","),
                                util::join(c.target_nodes, ", "), outcome, who(c.requester)));
}

// --- The fence -----------------------------------------------------------------------------

void park(std::deque<runtime::ParkedJob>& where, const JobPtr& job, const char* boundary)
{
    job->parked = true;
    rt().state().mark_job_state(*job, JobState::waiting_for_daemons,
                                fmt::format("parked at the {} boundary: launch fence {}, {} grow(s) and {} shrink(s) "
                                            "in progress",
                                            boundary, state().fence(), state().grows().size(),
                                            state().shrinks().size()));
    where.push_back({job, state().campaign_ids()});
}

bool on_departed_node(const runtime::Job& job)
{
    for (const auto& p : job.procs) {
        if (p->node && (p->node->daemon == runtime::kInvalidRank || p->node->state == runtime::NodeState::down ||
                        p->node->state == runtime::NodeState::departing)) {
            return true;
        }
    }
    return false;
}

// spec: shrink-campaign-fence-tracking.txt, Step 4 (and the parent plan's fence release): jobs
// held at the launch boundary launch on their mapping, or are remapped onto the survivors when a
// departed node was in it; jobs held at the map boundary go on to map onto the nodes there are now.
void fence_release()
{
    if (state().fence() != 0) return;
    auto launch = std::exchange(state().held_at_launch(), {});
    auto mapping = std::exchange(state().held_at_map(), {});
    for (auto& parked : launch) {
        JobPtr job = parked.job;
        job->parked = false;
        if (!runtime::is_alive(job->state) || job->aborting) continue;
        if (on_departed_node(*job)) {
            state_verbose()(5, "job {}: released from the launch boundary; remapped onto the surviving nodes", job->nspace);
            rmaps::base::unmap_job(*job);
            rt().state().activate_job_state(job, JobState::map);
        } else {
            state_verbose()(5, "job {}: released from the launch boundary; launching on its mapping", job->nspace);
            rt().state().activate_job_state(job, JobState::launch_apps);
        }
    }
    for (auto& parked : mapping) {
        JobPtr job = parked.job;
        job->parked = false;
        if (!runtime::is_alive(job->state) || job->aborting) continue;
        state_verbose()(5, "job {}: released from the map boundary", job->nspace);
        rt().state().activate_job_state(job, JobState::map);
    }
}

void lower_fence(uint32_t n)
{
    if (state().lower_fence(n)) fence_release();
}

// A campaign has started: jobs held for the test hook go on (and meet the real hold points).
void campaign_started()
{
    for (auto& job : std::exchange(test_held(), {})) {
        job->parked = false;
        if (runtime::is_alive(job->state) && !job->aborting) rt().state().activate_job_state(job, JobState::launch_apps);
    }
}

// --- Grow ----------------------------------------------------------------------------------

runtime::GrowCampaign* grow_of_rank(Rank rank)
{
    if (auto* c = state().grow_of(rank)) return c;
    // A launch can fail before the launcher has told us the rank (inside launch_daemons).
    // Only while the node is still this rank's: a re-grown node's old, departed rank must not
    // take the new grow down with it.
    runtime::Node* node = node_of_daemon(rank);
    if (!node || node->daemon != rank) return nullptr;
    for (auto& [id, c] : state().grows()) {
        if (std::find(c.target_nodes.begin(), c.target_nodes.end(), node->name) != c.target_nodes.end()) return &c;
    }
    return nullptr;
}

void fail_grow(uint64_t id, const std::string& cause, pmix_status_t code)
{
    auto it = state().grows().find(id);
    if (it == state().grows().end()) return;
    runtime::GrowCampaign c = std::move(it->second);
    state().grows().erase(it);
    log_campaign(1, fmt::format("campaign {} (grow, {}) failed after {:.1f} ms: {}; rolling back node(s) {}", c.id,
                                c.alloc_id, elapsed_ms(c.started), cause, util::join(c.target_nodes, ", ")));
    // spec: "Failure semantics": the campaign's started daemons are terminated and its nodes leave
    // the DVM, which is left exactly as it was before the campaign.
    std::vector<Rank> ranks;
    for (const auto& name : c.target_nodes) {
        runtime::Node* node = rt().pool().find(name);
        if (node && node->daemon != runtime::kInvalidRank) ranks.push_back(node->daemon);
    }
    if (Module* m = module()) m->kill_daemons(ranks);
    for (Rank r : ranks) record_departure(r);
    messenger().mark_departed(ranks);
    // Daemons that had the campaign's wireup route to them: tell them the ranks are gone.
    if (c.wiring) broadcast(rml::tag::daemon_died, msg::encode_ranks(ranks));
    ras::base::grow_failed(c.target_nodes, rt().pool());
    for (const auto& name : c.target_nodes) {
        if (runtime::Node* node = rt().pool().find(name)) reset_node(*node);
    }
    // Jobs parked on this campaign never launch (spec: conformance item 1's exception).
    std::string why = fmt::format("the DVM could not grow (campaign {}, allocation {}, node(s) {}): {}", c.id, c.alloc_id,
                                  util::join(c.target_nodes, ", "), cause);
    for (auto* held : {&state().held_at_map(), &state().held_at_launch()}) {
        for (auto jt = held->begin(); jt != held->end();) {
            if (!jt->waiting_on.count(c.id)) {
                ++jt;
                continue;
            }
            JobPtr job = jt->job;
            jt = held->erase(jt);
            job->parked = false;
            terminate_job(job, fmt::format("job {} was waiting for the DVM to grow and is aborted: {}", job->nspace, why),
                          JobState::failed_to_launch, 1);
        }
    }
    set_phase(c.alloc_id, AllocationPhase::failed, cause);
    tell_requester(c, false, code, why);
    lower_fence(static_cast<uint32_t>(c.target_nodes.size()));
}

// A grown daemon learns the jobs already running: collectives over them may route through it.
void introduce_jobs(const std::vector<Rank>& targets)
{
    for (const auto& job : rt().jobs().all()) {
        if (job->is_daemon_job || !runtime::is_alive(job->state) || job->parked ||
            static_cast<int>(job->state) < static_cast<int>(JobState::send_launch_msg)) {
            continue;
        }
        rml::Payload launch = msg::encode_job(*job);
        for (Rank r : targets) messenger().send(r, rml::tag::launch_apps, launch);
    }
}

void complete_grow(uint64_t id, const Status& st)
{
    auto it = state().grows().find(id);
    if (it == state().grows().end()) return;  // failed meanwhile (a target died during the wireup)
    if (!st) {
        fail_grow(id, st.message(), PMIX_ERR_UNREACH);
        return;
    }
    runtime::GrowCampaign c = std::move(it->second);
    state().grows().erase(it);
    for (const auto& name : c.target_nodes) {
        runtime::Node* node = rt().pool().find(name);
        if (node && node->state == runtime::NodeState::joining) node->state = runtime::NodeState::up;
    }
    introduce_jobs(c.targets);
    log_completion(c, "grow", "wired");
    set_phase(c.alloc_id, AllocationPhase::ready);
    tell_requester(c, true, PMIX_SUCCESS, {});
    lower_fence(static_cast<uint32_t>(c.target_nodes.size()));
}

void start_grow(const runtime::AllocationRequest& request, const std::string& alloc_id,
                const std::vector<runtime::Node*>& nodes, Answer answer)
{
    runtime::GrowCampaign c;
    open_campaign(c, request, alloc_id);
    for (runtime::Node* node : nodes) {
        node->state = runtime::NodeState::joining;
        c.target_nodes.push_back(node->name);
    }
    uint64_t id = c.id;
    state().grows()[id] = c;
    state().raise_fence(static_cast<uint32_t>(nodes.size()));
    set_phase(alloc_id, AllocationPhase::pending);
    log_campaign(5, fmt::format("campaign {} (grow, {}): node(s) {}, requester {}; launch fence {}", id, alloc_id,
                                util::join(c.target_nodes, ", "), who(c.requester), state().fence()));
    if (answer) answer({}, alloc_id);
    campaign_started();
    Module* m = module();
    Status st = m ? m->launch_daemons(*rt().jobs().daemon_job(), nodes)
                  : Status(Errc::not_supported, "no launcher (plm) is selected");
    auto it = state().grows().find(id);
    if (it == state().grows().end()) return;  // a target failed at once, and the campaign with it
    if (!st) {
        fail_grow(id, st.message(), PMIX_ERR_PROC_FAILED_TO_START);
        return;
    }
    for (runtime::Node* node : nodes) it->second.targets.push_back(node->daemon);
    hold_from_wireup(it->second.targets);
    plm_verbose()(5, "campaign {} (grow): daemon(s) {} launching", id, fmt::join(it->second.targets, ","));
}

// --- Shrink --------------------------------------------------------------------------------

// spec: collective-shrink-completion.txt, Step 2: run once per campaign, from the completion of
// the shrink order's broadcast on the master, when every surviving daemon has it and has
// repaired its tree. The master repaired its own (once, for the whole campaign) as it sent it.
void complete_shrink(uint64_t id, const Status& st)
{
    auto it = state().shrinks().find(id);
    if (it == state().shrinks().end()) return;
    runtime::ShrinkCampaign c = std::move(it->second);
    state().shrinks().erase(it);
    if (!st) plm_verbose()(1, "campaign {} (shrink): the order's broadcast ended with: {}", c.id, st.message());
    for (Rank r : c.targets) record_departure(r);
    // Every module sees the nodes as they were granted (component, allocation) before the reset.
    ras::base::shrink_complete(c, rt().pool());
    for (const auto& name : c.target_nodes) {
        if (runtime::Node* node = rt().pool().find(name)) reset_node(*node);
    }
    log_completion(c, "shrink", "left");
    set_phase(c.alloc_id, AllocationPhase::released);
    tell_requester(c, true, PMIX_SUCCESS, {});
    lower_fence(static_cast<uint32_t>(c.targets.size()));
}

void start_shrink(const runtime::AllocationRequest& request, const std::string& alloc_id,
                  const std::vector<runtime::Node*>& nodes, Answer answer)
{
    runtime::ShrinkCampaign c;
    open_campaign(c, request, alloc_id);
    for (runtime::Node* node : nodes) {
        node->state = runtime::NodeState::departing;
        c.targets.push_back(node->daemon);
        c.target_nodes.push_back(node->name);
        // Its processes go with its daemon; their jobs end saying why, not with a signal.
        end_jobs_on_node(node, fmt::format("node {} is leaving the DVM (released from allocation {})", node->name,
                                           alloc_id));
    }
    uint64_t id = c.id;
    std::vector<Rank> targets = c.targets;
    state().shrinks()[id] = std::move(c);
    // Listed (and the fence raised) before the order goes out: from here, nothing is mapped onto
    // these nodes or launched there (spec: shrink-campaign-fence-tracking.txt, Step 1c).
    state().raise_fence(static_cast<uint32_t>(targets.size()));
    set_phase(alloc_id, AllocationPhase::pending);
    log_campaign(5, fmt::format("campaign {} (shrink, {}): daemon(s) {} on {}, requester {}; launch fence {}", id,
                                alloc_id, fmt::join(targets, ","), util::join(state().shrinks()[id].target_nodes, ", "),
                                who(request.requester), state().fence()));
    if (answer) answer({}, alloc_id);
    campaign_started();
    msg::DaemonCommand order{msg::Command::shrink, {}, 0, targets};
    Status st = broadcast(rml::tag::daemon, msg::encode(order), [id](const Status& s) { complete_shrink(id, s); });
    if (!st) {
        auto it = state().shrinks().find(id);
        if (it == state().shrinks().end()) return;
        runtime::ShrinkCampaign failed = std::move(it->second);
        state().shrinks().erase(it);
        for (const auto& name : failed.target_nodes) {
            if (runtime::Node* node = rt().pool().find(name)) node->state = runtime::NodeState::up;
        }
        log_campaign(1, fmt::format("campaign {} (shrink, {}) failed: {}", id, alloc_id, st.message()));
        set_phase(alloc_id, AllocationPhase::failed, st.message());
        tell_requester(failed, false, PMIX_ERR_UNREACH, st.message());
        lower_fence(static_cast<uint32_t>(targets.size()));
        return;
    }
    // The master acts on its own copy of the order as every daemon does: one repair for the whole
    // campaign, which also closes its connections to departing children once the order is written
    // to them. The broadcast then completes on the survivors' acknowledgements.
    messenger().mark_departed(targets);
}

// --- Requests ------------------------------------------------------------------------------

// Phase-one checks of a release the modules accepted: what leaves must be a daemon of the DVM
// that is neither the master's nor already coming or going.
Status check_release(const std::vector<runtime::Node*>& nodes)
{
    for (const runtime::Node* node : nodes) {
        if (node->daemon == 0) {
            return {Errc::bad_param, fmt::format("cannot release node {}: the DVM's master runs there", node->name)};
        }
        if (node->state == runtime::NodeState::departing) {
            return {Errc::bad_param, fmt::format("cannot release node {}: it is already leaving the DVM", node->name)};
        }
        if (node->state == runtime::NodeState::joining) {
            return {Errc::bad_param, fmt::format("cannot release node {}: it is still joining the DVM", node->name)};
        }
        if (!node->daemon_launched || node->daemon == runtime::kInvalidRank || node->state == runtime::NodeState::down) {
            return {Errc::not_found, fmt::format("cannot release node {}: it is not in the DVM", node->name)};
        }
    }
    return {};
}

void on_completed(ras::base::CompletedRequest& done)
{
    Answer answer = take_answer(done.request.serial);
    auto refuse = [&](const Status& why) {
        log_campaign(2, fmt::format("{} request from {} refused: {}", runtime::to_string(done.request.directive),
                                    who(done.request.requester), why.message()));
        if (answer) answer(why, {});
    };
    if (!state().enabled()) {
        refuse({Errc::not_supported, "the DVM is not elastic (start prte with --prtemca prte_elastic_mode 1)"});
        return;
    }
    if (!done.result.status) {
        refuse(done.result.status);
        return;
    }
    std::string alloc_id = done.result.alloc_id.empty() ? done.request.alloc_id : done.result.alloc_id;
    if (alloc_id.empty()) alloc_id = state().next_alloc_id();
    if (done.request.directive == AllocDirective::release) {
        if (Status st = check_release(done.releasing); !st) {
            refuse(st);
            return;
        }
        if (done.releasing.empty()) {
            if (answer) answer({}, alloc_id);  // nothing changes: complete now, no event
            return;
        }
        start_shrink(done.request, alloc_id, done.releasing, std::move(answer));
        return;
    }
    if (done.added.empty()) {
        // Every node already has a daemon: accepted, complete, and no event (spec: "No event when
        // nothing changes").
        log_campaign(5, fmt::format("{} request from {}: every node is already in the DVM; nothing changes",
                                    runtime::to_string(done.request.directive), who(done.request.requester)));
        if (!state().allocations().count(alloc_id)) set_phase(alloc_id, AllocationPhase::ready);
        if (answer) answer({}, alloc_id);
        return;
    }
    start_grow(done.request, alloc_id, done.added, std::move(answer));
}

// Checks what needs no module: a request a user can get wrong in ways no module would see.
Status check_request(const runtime::AllocationRequest& r)
{
    switch (r.directive) {
    case AllocDirective::new_allocation:
    case AllocDirective::extend:
        if (r.num_nodes == 0 && r.node_list.empty() && r.hostfile.empty()) {
            return {Errc::bad_param, "a request to grow the DVM must ask for nodes: PMIX_ALLOC_NUM_NODES above 0 or "
                                     "a PMIX_ALLOC_NODE_LIST"};
        }
        break;
    case AllocDirective::release:
        if (r.node_list.empty()) {
            return {Errc::bad_param, "a release must name its nodes (PMIX_ALLOC_NODE_LIST)"};
        }
        break;
    case AllocDirective::reacquire:
    case AllocDirective::cancel:
        return {Errc::not_supported, fmt::format("'{}' allocation requests are not supported by this DVM",
                                                 runtime::to_string(r.directive))};
    }
    for (const auto& entry : r.node_list) {
        std::vector<std::string> names;
        std::string_view hosts = entry;
        if (auto colon = entry.find(':'); colon != std::string::npos && r.directive != AllocDirective::release) {
            hosts = std::string_view(entry).substr(0, colon);
        }
        if (Status st = util::expand_hostlist(hosts, names); !st) {
            return {Errc::bad_param, fmt::format("bad node list '{}': {}", entry, st.message())};
        }
    }
    return {};
}

}  // namespace

void enable()
{
    ras::base::set_completion_handler(on_completed);
}

void submit(runtime::AllocationRequest request, Answer answer)
{
    static uint64_t last_serial = 0;
    if (!state().enabled()) {
        answer({Errc::not_supported, "allocation requests need an elastic DVM: start prte with --prtemca "
                                     "prte_elastic_mode 1"},
               {});
        return;
    }
    if (rt().shutting_down()) {
        answer({Errc::unreachable, "the DVM is shutting down"}, {});
        return;
    }
    if (Status st = check_request(request); !st) {
        log_campaign(2, fmt::format("{} request from {} refused: {}", runtime::to_string(request.directive),
                                    who(request.requester), st.message()));
        answer(st, {});
        return;
    }
    if (request.alloc_id.empty()) request.alloc_id = state().next_alloc_id();
    request.serial = ++last_serial;
    answers()[request.serial] = std::move(answer);
    ras_verbose()(5, "{} request from {} ({} node(s) named, {} asked for, allocation {})",
                  runtime::to_string(request.directive), who(request.requester), request.node_list.size(),
                  request.num_nodes, request.alloc_id);
    Status st = ras::base::modify(request, rt().pool());
    if (!st) {
        if (Answer a = take_answer(request.serial)) a(st, {});
    }
}

bool hold_at_map(const JobPtr& job)
{
    if (!state().enabled() || state().fence() == 0 || job->is_daemon_job) return false;
    park(state().held_at_map(), job, "map");
    return true;
}

bool hold_at_launch(const JobPtr& job)
{
    if (!state().enabled() || job->is_daemon_job) return false;
    if (rt().settings().test_hold_launch && !job->parked &&
        std::find(test_held().begin(), test_held().end(), job) == test_held().end()) {
        static std::set<std::string> already;  // each job is held for the test once
        if (already.insert(job->nspace).second) {
            job->parked = true;
            rt().state().mark_job_state(*job, JobState::waiting_for_daemons,
                                        "held at the launch boundary until the next size change (prte_test_hold_launch)");
            test_held().push_back(job);
            return true;
        }
    }
    if (state().shrinks().empty()) return false;
    park(state().held_at_launch(), job, "launch");
    return true;
}

bool daemon_reported(Rank rank)
{
    if (!state().enabled()) return false;
    runtime::GrowCampaign* c = state().grow_of(rank);
    if (!c) return false;
    c->reported.insert(rank);
    plm_verbose()(5, "campaign {} (grow): daemon {} called home ({}/{})", c->id, rank, c->reported.size(),
                  c->targets.size());
    if (c->reported.size() < c->targets.size() || c->wiring) return true;
    c->wiring = true;
    release_to_wireup(c->targets);
    uint64_t id = c->id;
    if (Status st = broadcast_wireup([id](const Status& s) { complete_grow(id, s); }); !st) {
        fail_grow(id, st.message(), PMIX_ERR_UNREACH);
    }
    return true;
}

bool daemon_lost(Rank rank, runtime::ProcState reason, const std::string& why)
{
    if (!state().enabled() || !rt().dvm_ready()) return false;
    if (runtime::GrowCampaign* c = grow_of_rank(rank)) {
        pmix_status_t code = reason == runtime::ProcState::failed_to_start ? PMIX_ERR_PROC_FAILED_TO_START : PMIX_ERR_LOST_CONNECTION;
        fail_grow(c->id, why, code);
        return true;
    }
    if (runtime::ShrinkCampaign* c = state().shrink_of(rank)) {
        // Clean exit or crash, it is leaving either way (spec: conformance item 6).
        plm_verbose()(5, "daemon {} (a target of shrink campaign {}) is gone: ignoring it", rank, c->id);
        return true;
    }
    runtime::Node* node = node_of_daemon(rank);
    if (!daemon_gone(rank)) {
        plm_verbose()(5, "daemon {} had already left the DVM: ignoring it", rank);
        return true;
    }
    // An unrequested departure: the DVM carries on without the node (spec: issue item 7).
    output::error("{}; the DVM carries on without node {} (elastic mode)", why, node ? node->name : "?");
    broadcast(rml::tag::daemon_died, msg::encode_ranks({rank}));
    if (node) {
        end_jobs_on_node(node, why, true);
        reset_node(*node);
    }
    return true;
}

void drain(const std::string& why)
{
    std::vector<uint64_t> ids;
    for (const auto& [id, c] : state().grows()) ids.push_back(id);
    for (uint64_t id : ids) fail_grow(id, why, PMIX_ERR_UNREACH);
}

}  // namespace prte::plm::base::elastic
