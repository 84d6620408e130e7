#include "mca/ras/simulator/ras_simulator_module.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include <limits>
#include <optional>
#include <vector>

#include "mca/base/param.h"
#include "mca/ras/base/ras_base.h"
#include "runtime/slot_policy.h"
#include "util/strings.h"

namespace prte::ras::simulator {
namespace {

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// The comma-separated counts of `param` (ras_simulator_slots, _max_slots), each at least `min`, at
// most one per node; empty: none.
Status parse_counts(const std::string& text, const char* param, int64_t min, int64_t nodes, std::vector<int>& out)
{
    for (const std::string& entry : util::split(text, ',', true)) {
        std::optional<int64_t> n = util::parse_int(util::trim(entry));
        if (!n || *n < min || *n > std::numeric_limits<int>::max()) {
            return {Errc::bad_param, fmt::format("{}: '{}' is not a count of at least {}", param, entry, min)};
        }
        out.push_back(static_cast<int>(*n));
    }
    if (static_cast<int64_t>(out.size()) > nodes) {
        return {Errc::bad_param, fmt::format("{} gives {} counts for {} simulated node(s) (one per node at most; the "
                                             "last one given counts for the nodes after it)",
                                             param, out.size(), nodes)};
    }
    return {};
}

// Node i's entry of a list whose last entry counts for the nodes after it.
template <typename T>
const T& entry_for(const std::vector<T>& list, int64_t i)
{
    return list[std::min<size_t>(static_cast<size_t>(i), list.size() - 1)];
}

Status read_text(const std::string& path, std::string& text)
{
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) {
        return {Errc::not_found, fmt::format("ras_simulator_topo_files: cannot read topology file '{}': {}", path,
                                             std::strerror(errno))};
    }
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return {Errc::bad_file, fmt::format("ras_simulator_topo_files: cannot read topology file '{}'", path)};
    return {};
}

// The topologies of ras_simulator_topo_files, in order (a file named twice is one object), or this
// node's own when none is named.
Status load_topologies(const std::string& files, int64_t nodes, runtime::HwTopologyCache& cache,
                       std::vector<runtime::HwTopologyPtr>& out)
{
    std::vector<std::string> paths = util::split(files, ',', true);
    if (paths.empty()) {
        runtime::HwTopologyPtr local = runtime::HwTopology::local();
        if (!local) {
            return {Errc::not_found, "ras/simulator: hwloc cannot read this node, so it cannot stand for the "
                                     "simulated ones: give their topologies with ras_simulator_topo_files"};
        }
        out.push_back(local);
        return {};
    }
    if (static_cast<int64_t>(paths.size()) > nodes) {
        return {Errc::bad_param, fmt::format("ras_simulator_topo_files names {} files for {} simulated node(s): some "
                                             "would never be used",
                                             paths.size(), nodes)};
    }
    for (const std::string& entry : paths) {
        std::string path(util::trim(entry));
        std::string text;
        if (Status st = read_text(path, text); !st) return st;
        std::string error;
        runtime::HwTopologyPtr topology =
            cache.get(text, fmt::format("topology file '{}' (ras_simulator_topo_files)", path), error);
        if (!topology) return {Errc::bad_file, error};
        out.push_back(std::move(topology));
    }
    return {};
}

// Slots a node gets when ras_simulator_slots says nothing: what prte_set_slots gives a real node
// of the same topology (runtime/slot_policy.h), so that a simulated DVM maps as the real one
// would. The parameter is plm/base's; a process that opened no plm (a unit test) has the default.
int slots_of(const runtime::NodeTopology& topology)
{
    const mca::Param* policy = mca::ParamRegistry::instance().find(runtime::kSetSlotsParam);
    return runtime::slots_for(policy ? policy->as_string() : std::string(runtime::kDefaultSlotPolicy), topology);
}

}  // namespace

std::string node_name(int64_t index, int64_t count)
{
    int digits = 1;
    for (int64_t n = count; n >= 10; n /= 10) ++digits;
    return fmt::format("nodeA{:0{}}", index, digits);
}

Status SimulatorModule::allocate(const AllocateContext& context, runtime::NodePool& pool)
{
    const int64_t n = options_.num_nodes;
    if (n <= 0) {
        return {Errc::bad_param, "ras/simulator has no node to simulate: set ras_simulator_num_nodes to how many"};
    }
    if (!context.hosts.empty() || !context.hostfile.empty()) {
        return {Errc::bad_param,
                fmt::format("ras/simulator makes up every node of the DVM (ras_simulator_num_nodes {}): it cannot be "
                            "combined with {}; drop one or the other",
                            n, context.hostfile.empty() ? "--host" : "--hostfile")};
    }
    std::vector<runtime::HwTopologyPtr> topologies;
    std::vector<int> slots;
    std::vector<int> max_slots;
    if (Status st = load_topologies(options_.topo_files, n, topologies_, topologies); !st) return st;
    if (Status st = parse_counts(options_.slots, "ras_simulator_slots", 1, n, slots); !st) return st;
    if (Status st = parse_counts(options_.max_slots, "ras_simulator_max_slots", 0, n, max_slots); !st) return st;
    for (int64_t i = 0; i < n; ++i) {
        runtime::Node node;
        node.name = node_name(i, n);
        node.simulated = true;
        node.hw = topologies[static_cast<size_t>(i) % topologies.size()];
        node.topology = node.hw->counts();
        // Counts from the parameter were given, as a hostfile's are; from the topology they were not.
        node.slots_given = !slots.empty();
        node.slots = slots.empty() ? slots_of(node.topology) : entry_for(slots, i);
        node.slots_max = max_slots.empty() ? 0 : entry_for(max_slots, i);
        // No daemon will ever report: the node is up as soon as it is made up.
        node.state = runtime::NodeState::up;
        node.ras_component = kComponentName;
        verbose()(5, "simulator: {}: {} slot(s), max_slots {}, {} package(s), {} core(s), {} hwthread(s)", node.name,
                  node.slots, node.slots_max, node.topology.packages, node.topology.cores, node.topology.hwthreads);
        pool.add(node);
    }
    verbose()(2, "simulator: {} simulated node(s) ({} distinct topolog{}): jobs are mapped there, never launched", n,
              topologies.size(), topologies.size() == 1 ? "y" : "ies");
    return {};
}

}  // namespace prte::ras::simulator
