#include "mca/rmaps/seq/rmaps_seq_module.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "util/strings.h"

namespace prte::rmaps::seq {
namespace {

using base::describe_app;
using runtime::AppContext;
using runtime::Job;
using runtime::MapBy;
using runtime::Node;

// A verbose line lists at most this many ranks, so a thousand-rank job gives one readable line.
constexpr size_t kRanksInMessage = 16;

// Where the app's list of hosts comes from, for messages.
std::string list_source(const AppContext& app)
{
    if (!app.hostfile.empty()) return fmt::format("hostfile '{}'", app.hostfile);
    if (!app.hosts.empty()) return "its --host list";
    return "the DVM's usable nodes";
}

Status failure(Errc code, const AppContext& app, const std::string& why)
{
    return {code, fmt::format("--map-by seq for {}: {}", describe_app(app), why)};
}

// Every entry to be used names a node the app may use (the base keeps unusable ones in the list,
// so that a rank is never silently moved to the next entry).
Status check_usable(const AppContext& app, const std::vector<Node*>& entries, size_t count,
                    const std::vector<Node*>& usable)
{
    std::unordered_set<const Node*> allowed(usable.begin(), usable.end());
    for (size_t i = 0; i < count; ++i) {
        if (allowed.count(entries[i])) continue;
        return failure(Errc::out_of_resource, app,
                       fmt::format("entry {} of {} is {}, which the app may not use (state {}; a node that is "
                                   "departing or outside the app's --host list is not usable either)",
                                   i + 1, list_source(app), entries[i]->name, runtime::to_string(entries[i]->state)));
    }
    return {};
}

// Each node can take all the processes its entries give it (base::check_room); nodes checked in
// order of first appearance, so the error names the first that cannot.
Status check_slots(const Job& job, const AppContext& app, const std::vector<Node*>& entries, size_t count,
                   const MapContext& context)
{
    std::map<const Node*, int64_t> per_node;
    std::vector<const Node*> order;
    for (size_t i = 0; i < count; ++i) {
        if (per_node[entries[i]]++ == 0) order.push_back(entries[i]);
    }
    for (const Node* n : order) {
        if (Status st = base::check_room(job, context, app, *n, per_node[n]); !st) {
            return failure(st.code(), app, st.message());
        }
    }
    return {};
}

// "node3 node1 node3" (rank order) for the verbose stream.
std::string describe_ranks(const Job& job, size_t first_rank)
{
    std::vector<std::string> names;
    for (size_t r = first_rank; r < job.procs.size() && names.size() < kRanksInMessage; ++r) {
        names.push_back(job.procs[r]->node->name);
    }
    std::string text = util::join(names, " ");
    size_t placed = job.procs.size() - first_rank;
    if (placed > kRanksInMessage) text += fmt::format(" and {} more", placed - kRanksInMessage);
    return text;
}

Status map_app(Job& job, const AppContext& app, const std::vector<Node*>& usable, const MapContext& context)
{
    auto index = static_cast<size_t>(app.index);
    // A context built without named nodes (no app names hosts) may leave the list out.
    static const std::vector<Node*> none;
    const std::vector<Node*>& named = index < context.app_named_nodes.size() ? context.app_named_nodes[index] : none;
    const std::vector<Node*>& entries = named.empty() ? usable : named;
    if (entries.empty()) return failure(Errc::out_of_resource, app, "no usable node to run on");
    if (app.num_procs < 0) {
        return failure(Errc::bad_param, app, fmt::format("-n {} is not a process count; give a positive count",
                                                         app.num_procs));
    }
    size_t count = app.num_procs == 0 ? entries.size() : static_cast<size_t>(app.num_procs);
    if (count > entries.size()) {
        return failure(Errc::out_of_resource, app,
                       fmt::format("-n {} asks for more processes than the {} entries of {} (one process per "
                                   "entry); give at most -n {}, or list more hosts",
                                   count, entries.size(), list_source(app), entries.size()));
    }
    if (Status st = check_usable(app, entries, count, usable); !st) return st;
    if (Status st = check_slots(job, app, entries, count, context); !st) return st;

    size_t first_rank = job.procs.size();
    for (size_t i = 0; i < count; ++i) base::claim_slot(job, *entries[i], app.index);
    base::framework().verbose()(5, "seq: mapped {} from {}: ranks {}-{} on {}", describe_app(app), list_source(app),
                                first_rank, job.procs.size() - 1, describe_ranks(job, first_rank));
    return {};
}

}  // namespace

Status SeqModule::map(Job& job, const MapContext& context)
{
    if (job.mapping.by != MapBy::seq) {
        base::framework().verbose()(10, "seq: --map-by {} is not mine (job {})", runtime::to_string(job.mapping.by),
                                    job.nspace);
        return {Errc::take_next_option, ""};
    }
    for (const auto& app : job.apps) {
        const std::vector<Node*>* usable = nullptr;
        if (Status st = base::app_candidates(job, app, context, usable); !st) return st;
        if (Status st = map_app(job, app, *usable, context); !st) return st;
    }
    return {};
}

}  // namespace prte::rmaps::seq
