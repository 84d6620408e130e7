#include "mca/rmaps/rank_file/rmaps_rank_file_module.h"

#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "mca/rmaps/base/rmaps_base.h"
#include "mca/rmaps/base/rmaps_placement.h"
#include "runtime/hw_topology.h"
#include "util/strings.h"

namespace prte::rmaps::rank_file {
namespace {

using runtime::Job;
using runtime::MapBy;
using runtime::Node;

struct Entry {
    int line = 0;
    std::string host;  // a node name, or "+n<X>"
    std::string cpus;  // as written after slot=
};

Status at_line(const std::string& file, int line, const std::string& why)
{
    return {Errc::bad_param, fmt::format("rankfile {} line {}: {}", file, line, why)};
}

// "rank 3=node2 slot=0-1" into its rank and entry.
Status parse_line(const std::string& file, int number, const std::string& text, std::map<int64_t, Entry>& entries)
{
    std::istringstream words(text);
    std::string rank_word, assignment, slot;
    words >> rank_word >> assignment >> slot;
    std::string extra;
    words >> extra;
    if (rank_word != "rank" || assignment.empty() || slot.empty() || !extra.empty()) {
        return at_line(file, number, fmt::format("'{}' is not 'rank <N>=<host> slot=<cpus>'", text));
    }
    size_t eq = assignment.find('=');
    auto rank = util::parse_int(assignment.substr(0, eq));
    if (eq == std::string::npos || !rank || *rank < 0) {
        return at_line(file, number, fmt::format("'{}' is not <N>=<host> with N a rank", assignment));
    }
    Entry e;
    e.line = number;
    e.host = assignment.substr(eq + 1);
    if (e.host.empty()) return at_line(file, number, fmt::format("rank {} names no host", *rank));
    size_t seq = slot.find('=');
    std::string key = slot.substr(0, seq);
    if (seq == std::string::npos || (key != "slot" && key != "slots") || seq + 1 == slot.size()) {
        return at_line(file, number, fmt::format("'{}' is not slot=<cpus>", slot));
    }
    e.cpus = slot.substr(seq + 1);
    if (!entries.emplace(*rank, e).second) {
        return at_line(file, number, fmt::format("rank {} is placed twice (first on line {})", *rank, entries[*rank].line));
    }
    return {};
}

Status read_file(const std::string& file, std::map<int64_t, Entry>& entries)
{
    std::ifstream in(file);
    if (!in) return {Errc::bad_file, fmt::format("cannot read rankfile {}", file)};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        std::string text(util::trim(line.substr(0, line.find('#'))));
        if (text.empty()) continue;
        if (Status st = parse_line(file, number, text, entries); !st) return st;
    }
    if (entries.empty()) return {Errc::bad_file, fmt::format("rankfile {} places no rank", file)};
    return {};
}

// "a", "a-b" ids into `out`; false when malformed.
bool parse_ids(const std::string& list, std::vector<int>& out)
{
    for (const std::string& part : util::split(list, ',')) {
        size_t dash = part.find('-');
        auto first = util::parse_int(part.substr(0, dash));
        auto last = dash == std::string::npos ? first : util::parse_int(part.substr(dash + 1));
        if (!first || !last || *first < 0 || *last < *first || *last > 65535) return false;
        for (int64_t id = *first; id <= *last; ++id) out.push_back(static_cast<int>(id));
    }
    return !out.empty();
}

// The CPUs of slot=<cpus> on `node`, as a list of OS indices, and how to say them.
Status cpus_on(const Job& job, const std::string& file, const Entry& e, const Node& node, std::string& cpuset)
{
    const runtime::HwTopology* topo = node.hw.get();
    if (!topo) return at_line(file, e.line, fmt::format("the topology of node {} is unknown", node.name));
    const bool hwt = job.mapping.hwtcpus;
    const char* word = hwt ? "hwthread" : "core";
    const auto& cpus = topo->cpus(hwt);
    std::vector<hwloc_obj_t> chosen;
    size_t colon = e.cpus.find(':');
    std::vector<int> ids;
    if (!parse_ids(colon == std::string::npos ? e.cpus : e.cpus.substr(colon + 1), ids)) {
        return at_line(file, e.line, fmt::format("slot={} is not a list of {} ids (0-2,4 or <package>:0-2)", e.cpus, word));
    }
    if (colon == std::string::npos) {
        for (int id : ids) {
            if (static_cast<size_t>(id) >= cpus.size()) {
                return at_line(file, e.line, fmt::format("node {} has no {} {} (it has {})", node.name, word, id, cpus.size()));
            }
            chosen.push_back(cpus[static_cast<size_t>(id)]);
        }
    } else {
        auto package = util::parse_int(e.cpus.substr(0, colon));
        const auto& packages = topo->objects(runtime::HwLevel::package);
        if (!package || *package < 0 || static_cast<size_t>(*package) >= packages.size()) {
            return at_line(file, e.line, fmt::format("node {} has no package {} (it has {})", node.name,
                                                     e.cpus.substr(0, colon), packages.size()));
        }
        std::vector<hwloc_obj_t> inside;
        for (hwloc_obj_t c : cpus) {
            if (hwloc_bitmap_isincluded(c->cpuset, packages[static_cast<size_t>(*package)]->cpuset)) inside.push_back(c);
        }
        for (int id : ids) {
            if (static_cast<size_t>(id) >= inside.size()) {
                return at_line(file, e.line, fmt::format("package {} of node {} has no {} {} (it has {})", *package,
                                                         node.name, word, id, inside.size()));
            }
            chosen.push_back(inside[static_cast<size_t>(id)]);
        }
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (hwloc_obj_t c : chosen) hwloc_bitmap_or(set, set, c->cpuset);
    cpuset = runtime::cpu_list(set);
    hwloc_bitmap_free(set);
    return {};
}

using NodesByName = std::unordered_map<std::string, Node*>;

// The app's usable nodes by name and alias, built once: a rankfile has a line per rank.
NodesByName index_names(const std::vector<Node*>& usable)
{
    NodesByName out;
    for (Node* n : usable) {
        out.emplace(n->name, n);
        for (const std::string& alias : n->aliases) out.emplace(alias, n);
    }
    return out;
}

Status find_node(const std::string& file, const Entry& e, const std::vector<Node*>& usable, const NodesByName& names,
                 Node*& node)
{
    if (e.host.rfind("+n", 0) == 0) {
        auto index = util::parse_int(e.host.substr(2));
        if (!index || *index < 0 || static_cast<size_t>(*index) >= usable.size()) {
            return at_line(file, e.line, fmt::format("{} is not one of the app's {} usable node(s) (+n0 to +n{})", e.host,
                                                     usable.size(), usable.size() - 1));
        }
        node = usable[static_cast<size_t>(*index)];
        return {};
    }
    if (auto it = names.find(e.host); it != names.end()) {
        node = it->second;
        return {};
    }
    return at_line(file, e.line, fmt::format("host {} is not a node this app may use", e.host));
}

}  // namespace

Status RankFileModule::map(Job& job, const MapContext& context)
{
    const auto& verbose = base::framework().verbose();
    if (job.mapping.by != MapBy::rankfile) {
        verbose(10, "rank_file: --map-by {} is not mine (job {})", runtime::to_string(job.mapping.by), job.nspace);
        return {Errc::take_next_option, ""};
    }
    const std::string& file = job.mapping.file;
    std::map<int64_t, Entry> entries;
    if (Status st = read_file(file, entries); !st) return st;
    int64_t next = 0;
    for (const auto& app : job.apps) {
        const std::vector<Node*>* usable = nullptr;
        if (Status st = base::app_candidates(job, app, context, usable); !st) return st;
        int64_t count = app.num_procs > 0 ? app.num_procs : static_cast<int64_t>(entries.size()) - next;
        if (count <= 0) return {Errc::bad_param, fmt::format("rankfile {} has no rank left for {}", file, base::describe_app(app))};
        const NodesByName names = index_names(*usable);
        std::map<Node*, int64_t> per_node;
        std::vector<std::pair<Node*, const Entry*>> placed;
        for (int64_t rank = next; rank < next + count; ++rank) {
            auto it = entries.find(rank);
            if (it == entries.end()) {
                return {Errc::bad_param, fmt::format("rankfile {} does not place rank {} ({} needs ranks {}-{})", file,
                                                     rank, base::describe_app(app), next, next + count - 1)};
            }
            Node* node = nullptr;
            if (Status st = find_node(file, it->second, *usable, names, node); !st) return st;
            per_node[node]++;
            placed.emplace_back(node, &it->second);
        }
        for (auto& [node, n] : per_node) {
            if (Status st = base::check_room(job, context, app, *node, n); !st) {
                return {st.code(), fmt::format("rankfile {}: {}", file, st.message())};
            }
        }
        for (auto& [node, entry] : placed) {
            std::string cpuset;
            if (Status st = cpus_on(job, file, *entry, *node, cpuset); !st) return st;
            runtime::Proc& proc = base::claim_slot(job, *node, app.index);
            proc.cpuset = cpuset;
            proc.binding = fmt::format("rankfile slot={} (cpus {})", entry->cpus, cpuset);
        }
        verbose(5, "rank_file: mapped {} from {}: ranks {}-{}", base::describe_app(app), file, next, next + count - 1);
        next += count;
    }
    return {};
}

}  // namespace prte::rmaps::rank_file
