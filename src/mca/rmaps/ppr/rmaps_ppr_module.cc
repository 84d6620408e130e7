#include "mca/rmaps/ppr/rmaps_ppr_module.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"
#include "util/strings.h"

namespace prte::rmaps::ppr {
namespace {

using base::describe_app;
using runtime::AppContext;
using runtime::Job;
using runtime::MapBy;
using runtime::MappingPolicy;
using runtime::Node;

// A verbose line lists at most this many nodes, so a thousand-node DVM gives one readable line.
constexpr size_t kNodesInMessage = 8;

// What the objects are called in messages.
const char* object_names(MapBy object)
{
    switch (object) {
    case MapBy::package: return "packages";
    case MapBy::numa: return "NUMA domains";
    case MapBy::core: return "cores";
    case MapBy::hwthread: return "hwthreads";
    case MapBy::l1cache: return "L1 caches";
    case MapBy::l2cache: return "L2 caches";
    case MapBy::l3cache: return "L3 caches";
    default: return "objects";
    }
}

// How many of `object` the node has: 1 for the node itself, else from its topology (0 when
// unknown or absent).
int objects_on(const Job& job, const Node& node, MapBy object)
{
    if (object == MapBy::node) return 1;
    const runtime::HwTopology* topo = node.hw.get();
    if (!topo) return 0;
    runtime::MappingPolicy probe = job.mapping;
    probe.by = object;
    probe.hwtcpus = false;
    return static_cast<int>(topo->objects(base::mapping_level(probe)).size());
}

bool countable(MapBy object)
{
    switch (object) {
    case MapBy::node:
    case MapBy::package:
    case MapBy::numa:
    case MapBy::core:
    case MapBy::hwthread:
    case MapBy::l1cache:
    case MapBy::l2cache:
    case MapBy::l3cache: return true;
    default: return false;
    }
}

// "ppr:2:core", as the user wrote it.
std::string policy_text(const MappingPolicy& mapping)
{
    return fmt::format("ppr:{}:{}", mapping.ppr_count, runtime::to_string(mapping.ppr_object));
}

// Every status this mapper returns starts with the policy and the app.
Status failure(Errc code, const Job& job, const AppContext& app, const std::string& why)
{
    return {code, fmt::format("{} for {}: {}", policy_text(job.mapping), describe_app(app), why)};
}

// "node1 x2, node2 x2" for the verbose stream.
std::string describe_shares(const std::vector<Node*>& nodes, const std::vector<int64_t>& shares)
{
    std::vector<std::string> parts;
    size_t listed = 0, used = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (shares[i] == 0) continue;
        ++used;
        if (listed++ < kNodesInMessage) parts.push_back(fmt::format("{} x{}", nodes[i]->name, shares[i]));
    }
    std::string text = util::join(parts, ", ");
    if (used > kNodesInMessage) text += fmt::format(" and {} more node(s)", used - kNodesInMessage);
    return text;
}

// How many processes ppr places on each node, in full; an error when a node's count is unknown.
Status full_shares(const Job& job, const AppContext& app, const std::vector<Node*>& nodes,
                   std::vector<int64_t>& shares)
{
    const MappingPolicy& mapping = job.mapping;
    for (Node* n : nodes) {
        int objects = objects_on(job, *n, mapping.ppr_object);
        if (objects <= 0) {
            return failure(Errc::not_supported, job, app,
                           fmt::format("node {} has no {} (its topology is unknown, or hwloc finds none there), so "
                                       "processes cannot be placed per {} there; use ppr:{}:node",
                                       n->name, object_names(mapping.ppr_object),
                                       runtime::to_string(mapping.ppr_object), mapping.ppr_count));
        }
        shares.push_back(int64_t{mapping.ppr_count} * objects);
    }
    return {};
}

Status map_app(Job& job, const AppContext& app, const std::vector<Node*>& nodes, const MapContext& context)
{
    const auto& verbose = base::framework().verbose();
    if (nodes.empty()) return failure(Errc::out_of_resource, job, app, "no usable node to run on");
    if (app.num_procs < 0) {
        return failure(Errc::bad_param, job, app,
                       fmt::format("-n {} is not a process count; give a positive count", app.num_procs));
    }
    std::vector<int64_t> shares;
    if (Status st = full_shares(job, app, nodes, shares); !st) return st;
    int64_t total = 0;
    for (int64_t s : shares) total += s;
    verbose(10, "ppr: {} places {} process(es) for {}: {}", policy_text(job.mapping), total, describe_app(app),
            describe_shares(nodes, shares));

    int64_t requested = app.num_procs == 0 ? total : app.num_procs;
    if (requested > total) {
        return failure(Errc::out_of_resource, job, app,
                       fmt::format("-n {} asks for more processes than the {} it places on {} node(s); give at "
                                   "most -n {}, or leave -n out",
                                   requested, total, nodes.size(), total));
    }
    // With -n: the first `requested` in ppr order, so the nodes at the end may get fewer or none.
    int64_t left = requested;
    for (int64_t& share : shares) {
        share = std::min(share, left);
        left -= share;
    }
    // Every node is checked before any process is placed, so the error names the first node that
    // cannot take its share, and nothing is left half-mapped by this app.
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (shares[i] == 0) continue;
        if (Status st = base::check_room(job, context, app, *nodes[i], shares[i]); !st) {
            return failure(st.code(), job, app, st.message());
        }
    }
    size_t first_rank = job.procs.size();
    for (size_t i = 0; i < nodes.size(); ++i) {
        for (int64_t k = 0; k < shares[i]; ++k) base::claim_slot(job, *nodes[i], app.index);
    }
    verbose(5, "ppr: mapped {} by {}: ranks {}-{} on {}", describe_app(app), policy_text(job.mapping), first_rank,
            job.procs.size() - 1, describe_shares(nodes, shares));
    return {};
}

}  // namespace

Status PprModule::map(Job& job, const MapContext& context)
{
    const auto& verbose = base::framework().verbose();
    if (job.mapping.by != MapBy::ppr) {
        verbose(10, "ppr: --map-by {} is not mine (job {})", runtime::to_string(job.mapping.by), job.nspace);
        return {Errc::take_next_option, ""};
    }
    if (job.mapping.ppr_count <= 0 || !countable(job.mapping.ppr_object)) {
        return {Errc::bad_param, fmt::format("job {}: --map-by {} is not a valid ppr policy (ppr:N:<object>, N "
                                             "positive, the object node, package, numa, l3cache, l2cache, l1cache, core or hwthread)",
                                             job.nspace, policy_text(job.mapping))};
    }
    for (const auto& app : job.apps) {
        const std::vector<Node*>* nodes = nullptr;
        if (Status st = base::app_candidates(job, app, context, nodes); !st) return st;
        if (Status st = map_app(job, app, *nodes, context); !st) return st;
    }
    return {};
}

}  // namespace prte::rmaps::ppr
