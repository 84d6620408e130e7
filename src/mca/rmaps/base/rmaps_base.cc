#include "mca/rmaps/base/rmaps_base.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_app_nodes.h"
#include "mca/rmaps/base/rmaps_placement.h"
#include "runtime/placement_spec.h"
#include "runtime/runtime.h"

namespace prte::rmaps {

Module::~Module() = default;

namespace base {
namespace {

// Local rank: position among this job's procs on the node. Node rank: position among all
// procs on the node, so it continues after the procs other jobs already placed there.
void assign_ranks(runtime::Job& job)
{
    std::map<runtime::Node*, int> ours;  // this job's procs per node
    for (const auto& proc : job.procs) ours[proc->node]++;
    std::map<runtime::Node*, int> local;
    for (auto& proc : job.procs) {
        proc->local_rank = local[proc->node]++;
        proc->node_rank = proc->node->num_procs - ours[proc->node] + proc->local_rank;
    }
}

// After the mapper chose the nodes: places, rank order, local ranks, then CPUs (rmaps_placement.h).
Status place_inside_nodes(runtime::Job& job, const runtime::NodePool& pool)
{
    Places places;
    if (Status st = assign_places(job, places); !st) return {st.code(), fmt::format("job {}: {}", job.nspace, st.message())};
    if (Status st = rank_procs(job, places); !st) return {st.code(), fmt::format("job {}: {}", job.nspace, st.message())};
    assign_ranks(job);
    if (Status st = bind_procs(job, places, pool); !st) return {st.code(), fmt::format("job {}: {}", job.nspace, st.message())};
    return {};
}

}  // namespace

mca::Framework& framework()
{
    static mca::TypedFramework<Module> instance("rmaps", kInterfaceVersion, mca::SelectMode::multi,
                                                "Resource mapping: places processes on nodes");
    return instance;
}

std::vector<Module*> modules() { return mca::modules_of<Module>(framework()); }

bool node_is_usable(const runtime::Node& node)
{
    return node.state == runtime::NodeState::up || node.state == runtime::NodeState::unknown ||
           node.state == runtime::NodeState::added;
}

runtime::Proc& claim_slot(runtime::Job& job, runtime::Node& node, int app_index)
{
    auto proc = std::make_unique<runtime::Proc>();
    proc->rank = static_cast<runtime::Rank>(job.procs.size());
    proc->app_index = app_index;
    proc->node = &node;
    node.slots_inuse++;
    node.num_procs++;
    job.procs.push_back(std::move(proc));
    return *job.procs.back();
}

void release_binding(runtime::Proc& proc);  // rmaps_binding.cc

void release_proc(runtime::Proc& proc)
{
    if (!proc.node) return;
    release_binding(proc);
    proc.node->slots_inuse--;
    proc.node->num_procs--;
    proc.cpuset.clear();
    proc.binding.clear();
}

void unmap_job(runtime::Job& job)
{
    for (auto& proc : job.procs) release_proc(*proc);
    job.procs.clear();
    job.num_launched = 0;
}

namespace {

// Maps all of `job`'s apps by the job's one policy: the mapper chooses the nodes, then
// place_inside_nodes. On failure the job holds no process.
Status map_apps(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter)
{
    // bench/mapping reads the time this takes from the verbose line at level 2 below.
    const auto started = std::chrono::steady_clock::now();
    MapContext context;
    // :NOLOCAL: nothing on the node the job's tool runs on, which for a DVM is the master's.
    const std::string local = runtime::Runtime::instance().identity().node_name;
    NodeFilter usable = filter;
    if (job.mapping.nolocal) {
        usable = [&filter, &local](const runtime::Node& n) { return n.name != local && filter(n); };
    }
    for (const auto& given : job.apps) {
        // --map-by seq:FILE=<path> reads its hosts from that file, as a hostfile.
        runtime::AppContext app = given;
        if (job.mapping.by == runtime::MapBy::seq && !job.mapping.file.empty()) app.hostfile = job.mapping.file;
        AppNodes nodes;
        if (Status st = resolve_app_nodes(app, pool, usable, nodes); !st) {
            if (job.mapping.nolocal) return {st.code(), st.message() + fmt::format(" (:NOLOCAL leaves out {})", local)};
            return st;
        }
        for (runtime::Node* n : nodes.usable) context.slots_given = context.slots_given || n->slots_given;
        // By the app's index, which mappers read: map_each_app maps one app of many at a time.
        const auto at = static_cast<size_t>(given.index);
        if (context.app_nodes.size() <= at) {
            context.app_nodes.resize(at + 1);
            context.app_named_nodes.resize(at + 1);
            context.app_slot_caps.resize(at + 1);
        }
        context.app_nodes[at] = std::move(nodes.usable);
        context.app_named_nodes[at] = std::move(nodes.named);
        context.app_slot_caps[at] = std::move(nodes.slot_caps);
    }
    for (const auto& selected : framework().selected()) {
        auto* module = static_cast<Module*>(selected.module.get());
        Status st = module->map(job, context);
        if (st.code() == Errc::take_next_option) {
            framework().verbose()(10, "map: {} passed on job {}", selected.descriptor->name, job.nspace);
            continue;
        }
        if (!st) {
            unmap_job(job);
            return st;
        }
        const auto nodes_chosen = std::chrono::steady_clock::now();
        if (Status placed = place_inside_nodes(job, pool); !placed) {
            unmap_job(job);
            return placed;
        }
        framework().verbose()(5, "map: job {} mapped by {}: {} proc(s)", job.nspace, selected.descriptor->name,
                              job.procs.size());
        const auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
        const auto done = std::chrono::steady_clock::now();
        framework().verbose()(2, "map: job {}: {} proc(s) mapped in {:.1f} ms (nodes {:.1f} ms, inside nodes {:.1f} ms)",
                              job.nspace, job.procs.size(), ms(started, done), ms(started, nodes_chosen),
                              ms(nodes_chosen, done));
        return {};
    }
    if (job.mapping.by == runtime::MapBy::unset) {
        return {Errc::not_supported, fmt::format("no mapper is available for job {} (check the rmaps parameter: "
                                                 "prte_info --selected)", job.nspace)};
    }
    return {Errc::not_supported,
            fmt::format("no mapper can handle --map-by {} for job {}", to_string(job.mapping.by), job.nspace)};
}

// An MPMD job whose apps have their own --map-by: each app is placed as a job of its own would
// be, by its policy (runtime::app_mapping) and on what the apps before it left (the nodes' slots
// and CPU loads already count them); its processes then join the job after theirs, ranks
// following on. Local and node ranks are counted over the whole job at the end.
Status map_each_app(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter)
{
    for (const runtime::AppContext& app : job.apps) {
        runtime::Job part;
        part.nspace = job.nspace;
        part.reports = job.reports;  // binding reads them (:physical)
        part.apps.push_back(app);
        if (Status st = runtime::app_mapping(job.mapping, app.map_by, part.mapping); !st) {
            unmap_job(job);
            return {Errc::bad_param, fmt::format("job {} app {}: --map-by {}: {}", job.nspace, app.index, app.map_by,
                                                 st.message())};
        }
        if (Status st = map_apps(part, pool, filter); !st) {
            unmap_job(job);
            return st;
        }
        const auto first = static_cast<runtime::Rank>(job.procs.size());
        for (auto& proc : part.procs) {
            proc->rank += first;
            job.procs.push_back(std::move(proc));
        }
    }
    assign_ranks(job);
    return {};
}

}  // namespace

Status map_job(runtime::Job& job, runtime::NodePool& pool, const NodeFilter& filter)
{
    if (!job.procs.empty()) unmap_job(job);
    const bool own_policies =
        std::any_of(job.apps.begin(), job.apps.end(), [](const runtime::AppContext& app) { return !app.map_by.empty(); });
    return own_policies ? map_each_app(job, pool, filter) : map_apps(job, pool, filter);
}

}  // namespace base
}  // namespace prte::rmaps
