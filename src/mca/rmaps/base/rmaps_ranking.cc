// Step 2 of placement inside a node (rmaps_placement.h): the order of the ranks, --rank-by.
#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_placement.h"

namespace prte::rmaps::base {
namespace {

using runtime::HwLevel;
using runtime::Node;
using runtime::Proc;
using runtime::RankBy;
using Queue = std::deque<Proc*>;

std::optional<HwLevel> rank_level(RankBy by)
{
    switch (by) {
    case RankBy::hwthread: return HwLevel::hwthread;
    case RankBy::core: return HwLevel::core;
    case RankBy::l1cache: return HwLevel::l1cache;
    case RankBy::l2cache: return HwLevel::l2cache;
    case RankBy::l3cache: return HwLevel::l3cache;
    case RankBy::numa: return HwLevel::numa;
    case RankBy::package: return HwLevel::package;
    default: return std::nullopt;
    }
}

// Takes one from each queue in turn until all are empty.
std::vector<Proc*> round_robin(std::vector<Queue>& queues)
{
    std::vector<Proc*> out;
    bool any = true;
    while (any) {
        any = false;
        for (Queue& q : queues) {
            if (q.empty()) continue;
            out.push_back(q.front());
            q.pop_front();
            any = true;
        }
    }
    return out;
}

// A place wider than the ranking level (mapped by package, ranked by core): PRRTE then numbers
// the node's processes as mapped, a plain progression (docs/placement/fundamentals.rst).
constexpr int kFiner = -2;

// The logical index of the `level` object a process's place lies in, so that processes can be
// grouped by it; -1 when the node's topology is unknown, kFiner when the place is wider.
int object_index(const Node& node, const Place* place, HwLevel level)
{
    const runtime::HwTopology* topo = node.hw.get();
    if (!topo || !place || !place->object) return -1;
    const auto& objects = topo->objects(level);
    for (size_t i = 0; i < objects.size(); ++i) {
        if (hwloc_bitmap_isincluded(place->object->cpuset, objects[i]->cpuset)) return static_cast<int>(i);
    }
    return kFiner;
}

// One app's processes in their new rank order.
std::vector<Proc*> order_app(const runtime::MappingPolicy& m, const std::vector<Proc*>& procs, const Places& places)
{
    // Nodes in order of first appearance, each with its processes in mapping order.
    const ProcsByNode groups = group_by_node(procs);
    auto place_of = [&places](const Proc* p) -> const Place* {
        auto it = places.find(p);
        return it == places.end() ? nullptr : &it->second;
    };
    RankBy by = m.rank_by;
    std::optional<HwLevel> level = rank_level(by);
    bool span = m.rank_span;
    if (by == RankBy::span) {  // round the mapping's objects over the whole allocation
        HwLevel mapped = mapping_level(m);
        if (mapped == HwLevel::machine) {
            by = RankBy::node;
        } else {
            level = mapped;
            span = true;
        }
    }
    if (by == RankBy::unset) return procs;  // as mapped
    std::vector<Proc*> out;
    if (by == RankBy::slot) {
        for (const auto& [node, mine] : groups) out.insert(out.end(), mine.begin(), mine.end());
        return out;
    }
    if (by == RankBy::node) {
        std::vector<Queue> queues;
        for (const auto& [node, mine] : groups) queues.emplace_back(mine.begin(), mine.end());
        return round_robin(queues);
    }
    if (by == RankBy::fill) level = mapping_level(m) == HwLevel::machine ? HwLevel::core : mapping_level(m);
    // By an object: a queue per object of each node, in logical order.
    std::vector<std::vector<Queue>> per_node;
    for (const auto& [n, mine] : groups) {
        std::map<int, Queue> by_object;
        bool wider = false;
        for (Proc* p : mine) {
            int index = object_index(*n, place_of(p), *level);
            wider = wider || index == kFiner;
            by_object[index].push_back(p);
        }
        std::vector<Queue> queues;
        if (wider) {
            for (Proc* p : mine) queues.push_back(Queue{p});
        } else {
            for (auto& [index, q] : by_object) queues.push_back(std::move(q));
        }
        per_node.push_back(std::move(queues));
    }
    if (by == RankBy::fill) {
        for (auto& queues : per_node) {
            for (Queue& q : queues) out.insert(out.end(), q.begin(), q.end());
        }
        return out;
    }
    if (span) {
        std::vector<Queue> all;
        for (auto& queues : per_node) {
            for (Queue& q : queues) all.push_back(std::move(q));
        }
        return round_robin(all);
    }
    for (auto& queues : per_node) {
        std::vector<Proc*> part = round_robin(queues);
        out.insert(out.end(), part.begin(), part.end());
    }
    return out;
}

}  // namespace

Status rank_procs(runtime::Job& job, const Places& places)
{
    if (job.mapping.rank_by == RankBy::unset) return {};
    std::vector<std::unique_ptr<Proc>> reordered;
    reordered.reserve(job.procs.size());
    size_t begin = 0;
    while (begin < job.procs.size()) {
        size_t end = begin;
        while (end < job.procs.size() && job.procs[end]->app_index == job.procs[begin]->app_index) ++end;
        std::vector<Proc*> app;
        for (size_t i = begin; i < end; ++i) app.push_back(job.procs[i].get());
        std::vector<Proc*> order = order_app(job.mapping, app, places);
        if (order.size() != app.size()) {
            return {Errc::internal, fmt::format("ranking by {} lost processes of job {}",
                                                runtime::to_string(job.mapping.rank_by), job.nspace)};
        }
        std::map<Proc*, size_t> where;
        for (size_t i = begin; i < end; ++i) where[job.procs[i].get()] = i;
        for (Proc* p : order) reordered.push_back(std::move(job.procs[where[p]]));
        begin = end;
    }
    job.procs = std::move(reordered);
    for (size_t i = 0; i < job.procs.size(); ++i) job.procs[i]->rank = static_cast<runtime::Rank>(i);
    return {};
}

}  // namespace prte::rmaps::base
