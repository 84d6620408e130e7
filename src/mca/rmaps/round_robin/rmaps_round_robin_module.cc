#include "mca/rmaps/round_robin/rmaps_round_robin_module.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"
#include "util/strings.h"

namespace prte::rmaps::round_robin {
namespace {

using runtime::AppContext;
using runtime::Job;
using runtime::MapBy;
using runtime::Node;

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

// An error message lists at most this many nodes, so a thousand-node DVM gives one readable line.
constexpr size_t kNodesInMessage = 8;

// What one node can still take for the app being mapped.
struct NodeCapacity {
    Node* node = nullptr;
    int64_t free = 0;  // without oversubscribing
    int64_t room = 0;  // at most, oversubscribing: up to the hard limit, kUnlimited without one
    std::optional<int> cap;  // the app's --host count for the node ("--host vm:2"), if it gave one
};

NodeCapacity capacity_of(const Job& job, const MapContext& context, const AppContext& app, Node& node)
{
    NodeCapacity c;
    c.node = &node;
    c.room = node.slots_max > 0 ? std::max(0, node.slots_max - node.slots_inuse) : kUnlimited;
    c.free = std::min<int64_t>(base::app_free_slots(job, context, app, node), c.room);
    c.cap = base::app_slot_cap(context, app, node);
    return c;
}

int64_t total_free(const std::vector<NodeCapacity>& nodes)
{
    int64_t sum = 0;
    for (const auto& c : nodes) sum += c.free;
    return sum;
}

int64_t total_room(const std::vector<NodeCapacity>& nodes)
{
    int64_t sum = 0;
    for (const auto& c : nodes) {
        if (c.room == kUnlimited) return kUnlimited;
        sum += c.room;
    }
    return sum;
}

// "node01 (2), node02 (2)", with the count `amount` picks for each node.
template <typename Amount>
std::string describe_nodes(const std::vector<NodeCapacity>& nodes, Amount amount)
{
    std::vector<std::string> parts;
    for (size_t i = 0; i < nodes.size() && i < kNodesInMessage; ++i) {
        parts.push_back(fmt::format("{} ({})", nodes[i].node->name, amount(nodes[i])));
    }
    std::string text = util::join(parts, ", ");
    if (nodes.size() > kNodesInMessage) text += fmt::format(" and {} more node(s)", nodes.size() - kNodesInMessage);
    return text;
}

using base::describe_app;
using base::oversubscribe_allowed;

// The policies this mapper takes. By an object (core, a cache, numa, package, hwthread) and by a
// pe-list it places as by slot, filling the nodes in order (with :SPAN, spreading them over the
// nodes by their objects); which object of its node each process gets is the base's work
// (rmaps_placement.h), on the node's topology.
bool is_mine(MapBy policy)
{
    switch (policy) {
    case MapBy::unset:
    case MapBy::slot:
    case MapBy::node:
    case MapBy::core:
    case MapBy::package:
    case MapBy::numa:
    case MapBy::hwthread:
    case MapBy::l1cache:
    case MapBy::l2cache:
    case MapBy::l3cache:
    case MapBy::pe_list:
        return true;
    case MapBy::ppr:
    case MapBy::seq:
    case MapBy::rankfile:
        return false;
    }
    return false;
}

// "2", or "1, --host vm:1" where the app's --host count is what limits it.
std::string free_and_cap(const NodeCapacity& c)
{
    return c.cap ? fmt::format("{}, --host {}:{}", c.free, c.node->name, *c.cap) : std::to_string(c.free);
}

Status not_enough_slots(const Job& job, const AppContext& app, const std::vector<NodeCapacity>& nodes,
                        int64_t requested)
{
    std::string fix = job.mapping.oversubscribe.has_value()
                          ? fmt::format("oversubscription is disabled for this job (:NOOVERSUBSCRIBE); request at "
                                        "most {} process(es) or allow it with --map-by :OVERSUBSCRIBE",
                                        total_free(nodes))
                          : std::string("add --map-by :OVERSUBSCRIBE to oversubscribe");
    // With PE=n a node's room is its free CPUs divided by n: say so, or the count looks wrong.
    std::string pe = job.mapping.pes_per_proc > 0
                         ? fmt::format(" (PE={}: each process needs {} free {}s of its own)", job.mapping.pes_per_proc,
                                       job.mapping.pes_per_proc, job.mapping.hwtcpus ? "hwthread" : "core")
                         : std::string();
    return {Errc::out_of_resource,
            fmt::format("not enough slots for {}: {} requested, {} available on {}{}; {}", describe_app(app), requested,
                        total_free(nodes), describe_nodes(nodes, free_and_cap), pe, fix)};
}

Status beyond_hard_limits(const AppContext& app, const std::vector<NodeCapacity>& nodes, int64_t requested)
{
    return {Errc::out_of_resource,
            fmt::format("not enough slots for {}: {} requested, at most {} can be placed even oversubscribing, "
                        "because of the nodes' hard limits (max_slots) on {}; raise max_slots or request fewer "
                        "processes",
                        describe_app(app), requested, total_room(nodes),
                        describe_nodes(nodes, [](const NodeCapacity& c) { return c.room; }))};
}

Status no_free_slots(const AppContext& app, const std::vector<NodeCapacity>& nodes, bool may_oversubscribe)
{
    return {Errc::out_of_resource,
            fmt::format("no free slots for {} on {}: without -n it runs one process per free slot; {}",
                        describe_app(app), describe_nodes(nodes, [](const NodeCapacity& c) { return c.free; }),
                        may_oversubscribe ? "give -n to set a count"
                                          : "give -n with --map-by :OVERSUBSCRIBE to oversubscribe the nodes")};
}

// Gives `extra` more processes to the nodes one at a time in node order, cycling, skipping nodes at
// their hard limit: an even spread, as PRRTE balances the oversubscribed remainder. The caller has
// checked that the nodes have room for them.
void spread_evenly(const std::vector<NodeCapacity>& nodes, std::vector<int64_t>& counts, int64_t extra)
{
    while (extra > 0) {
        bool placed_any = false;
        for (size_t i = 0; i < nodes.size() && extra > 0; ++i) {
            if (counts[i] >= nodes[i].room) continue;
            counts[i]++;
            extra--;
            placed_any = true;
        }
        if (!placed_any) return;
    }
}

// By slot: fill each node's free slots in node order; spread any excess evenly. A node's
// processes get consecutive ranks. Returns the node index of each process, in rank order.
std::vector<size_t> plan_by_slot(const std::vector<NodeCapacity>& nodes, int64_t requested)
{
    std::vector<int64_t> counts(nodes.size(), 0);
    int64_t left = requested;
    for (size_t i = 0; i < nodes.size() && left > 0; ++i) {
        counts[i] = std::min(nodes[i].free, left);
        left -= counts[i];
    }
    spread_evenly(nodes, counts, left);
    std::vector<size_t> sequence;
    sequence.reserve(static_cast<size_t>(requested));
    for (size_t i = 0; i < nodes.size(); ++i) sequence.insert(sequence.end(), static_cast<size_t>(counts[i]), i);
    return sequence;
}

// By node: one process per node in turn, skipping full nodes. Once a whole turn places nothing,
// every free slot is taken, and the turn goes on past the slot counts up to the hard limits (the
// caller has checked that oversubscribing is allowed and that the room exists).
std::vector<size_t> plan_by_node(const std::vector<NodeCapacity>& nodes, int64_t requested)
{
    std::vector<int64_t> counts(nodes.size(), 0);
    std::vector<size_t> sequence;
    sequence.reserve(static_cast<size_t>(requested));
    bool oversubscribing = false;
    size_t skipped_in_a_row = 0;
    for (size_t i = 0; static_cast<int64_t>(sequence.size()) < requested; i = (i + 1) % nodes.size()) {
        int64_t limit = oversubscribing ? nodes[i].room : nodes[i].free;
        if (counts[i] < limit) {
            counts[i]++;
            sequence.push_back(i);
            skipped_in_a_row = 0;
        } else if (++skipped_in_a_row == nodes.size()) {
            if (oversubscribing) break;  // every node at its hard limit; the caller's check prevents it
            oversubscribing = true;
            skipped_in_a_row = 0;
        }
    }
    return sequence;
}

// :SPAN: the processes spread over the nodes in proportion to their objects of the mapping level
// (PRRTE's "load balance across the allocation"), each within its free slots; what does not fit
// goes to the nodes with room, in turn. `objects[i]` is node i's count (at least 1).
std::vector<size_t> plan_span(const std::vector<NodeCapacity>& nodes, const std::vector<int64_t>& objects,
                              int64_t requested)
{
    int64_t total_objects = 0;
    for (int64_t o : objects) total_objects += o;
    std::vector<int64_t> counts(nodes.size(), 0);
    int64_t left = requested;
    for (size_t i = 0; i < nodes.size(); ++i) {
        counts[i] = std::min(nodes[i].free, requested * objects[i] / std::max<int64_t>(1, total_objects));
        left -= counts[i];
    }
    // The rounding's remainder, one each to the nodes with a free slot, in turn.
    for (bool placed = true; left > 0 && placed;) {
        placed = false;
        for (size_t i = 0; i < nodes.size() && left > 0; ++i) {
            if (counts[i] >= nodes[i].free) continue;
            counts[i]++;
            left--;
            placed = true;
        }
    }
    spread_evenly(nodes, counts, left);
    std::vector<size_t> sequence;
    for (size_t i = 0; i < nodes.size(); ++i) sequence.insert(sequence.end(), static_cast<size_t>(counts[i]), i);
    return sequence;
}

// How many objects of the job's mapping level `node` has, for :SPAN (1 when unknown).
int64_t objects_for_span(const Job& job, const Node& node)
{
    const runtime::HwTopology* topo = node.hw.get();
    if (!topo) return 1;
    return std::max<int64_t>(1, static_cast<int64_t>(topo->objects(base::mapping_level(job.mapping)).size()));
}

// "node01 x3, node02 x3 (1 over its slots)" for the verbose stream.
std::string describe_placement(const std::vector<NodeCapacity>& nodes, const std::vector<size_t>& sequence)
{
    std::vector<int64_t> counts(nodes.size(), 0);
    for (size_t i : sequence) counts[i]++;
    std::vector<std::string> parts;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (counts[i] == 0) continue;
        std::string part = fmt::format("{} x{}", nodes[i].node->name, counts[i]);
        if (counts[i] > nodes[i].free) part += fmt::format(" ({} over its slots)", counts[i] - nodes[i].free);
        parts.push_back(std::move(part));
    }
    return util::join(parts, ", ");
}

Status map_app(Job& job, const AppContext& app, const std::vector<Node*>& candidates, const MapContext& context,
               bool by_node)
{
    const auto& verbose = base::framework().verbose();
    if (candidates.empty()) {
        return {Errc::out_of_resource, fmt::format("{} has no usable node to run on", describe_app(app))};
    }
    if (app.num_procs < 0) {
        return {Errc::bad_param, fmt::format("{} asks for {} processes; give -n a positive count", describe_app(app),
                                             app.num_procs)};
    }
    std::vector<NodeCapacity> nodes;
    for (Node* n : candidates) nodes.push_back(capacity_of(job, context, app, *n));
    verbose(10, "round_robin: {} may use (free slots) {}", describe_app(app),
            describe_nodes(nodes, [](const NodeCapacity& c) { return c.free; }));

    int64_t requested = app.num_procs;
    if (requested == 0) {
        requested = total_free(nodes);
        if (requested == 0) return no_free_slots(app, nodes, oversubscribe_allowed(job, context));
    }
    if (requested > total_free(nodes)) {
        if (!oversubscribe_allowed(job, context)) return not_enough_slots(job, app, nodes, requested);
        if (requested > total_room(nodes)) return beyond_hard_limits(app, nodes, requested);
        verbose(10, "round_robin: {} oversubscribes: {} requested, {} free slot(s)", describe_app(app), requested,
                total_free(nodes));
    }

    std::vector<size_t> sequence;
    if (job.mapping.span && !by_node) {
        std::vector<int64_t> objects;
        for (const auto& c : nodes) objects.push_back(objects_for_span(job, *c.node));
        sequence = plan_span(nodes, objects, requested);
    } else {
        sequence = by_node ? plan_by_node(nodes, requested) : plan_by_slot(nodes, requested);
    }
    if (static_cast<int64_t>(sequence.size()) != requested) {
        return {Errc::internal, fmt::format("round_robin placed {} of {} process(es) for {}", sequence.size(),
                                            requested, describe_app(app))};
    }
    size_t first_rank = job.procs.size();
    for (size_t i : sequence) base::claim_slot(job, *nodes[i].node, app.index);
    verbose(5, "round_robin: mapped {} by {}: ranks {}-{} on {}", describe_app(app), by_node ? "node" : "slot",
            first_rank, job.procs.size() - 1, describe_placement(nodes, sequence));
    return {};
}

}  // namespace

Status RoundRobinModule::map(Job& job, const MapContext& context)
{
    const auto& verbose = base::framework().verbose();
    MapBy policy = job.mapping.by;
    if (!is_mine(policy)) {
        verbose(10, "round_robin: --map-by {} is not mine (job {})", runtime::to_string(policy), job.nspace);
        return {Errc::take_next_option, ""};
    }
    // Without --map-by, nodes fill by slot; the base then goes round each node's cores (PRRTE's
    // default, mapping by core).
    bool by_node = policy == MapBy::node;
    if (!by_node && policy != MapBy::unset && policy != MapBy::slot) {
        verbose(10, "round_robin: --map-by {} for job {}: nodes filled in order as by slot; the base gives each "
                    "process a {} of its node",
                runtime::to_string(policy), job.nspace, runtime::to_string(policy));
    }
    for (const auto& app : job.apps) {
        const std::vector<Node*>* nodes = nullptr;
        if (Status st = base::app_candidates(job, app, context, nodes); !st) return st;
        if (Status st = map_app(job, app, *nodes, context, by_node); !st) return st;
    }
    return {};
}

}  // namespace prte::rmaps::round_robin
