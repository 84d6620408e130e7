#include "mca/ras/hosts/ras_hosts_module.h"

#include <limits.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "mca/ras/base/ras_base.h"
#include "runtime/runtime.h"
#include "runtime/topology.h"
#include "runtime/hostfile.h"
#include "util/hostlist.h"

namespace prte::ras::hosts {
namespace {

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// Cores, else hardware threads (a topology without core objects), else 1.
int count_local_cores()
{
    runtime::NodeTopology t = runtime::local_topology();
    if (t.cores > 0) return t.cores;
    return t.hwthreads > 0 ? t.hwthreads : 1;
}

std::string local_hostname()
{
    char name[HOST_NAME_MAX + 1] = {};
    if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
    return name;
}

// The name the master gives its own node (prte_node_name, else the hostname), which is the node
// it adopts as daemon 0's instead of launching a daemon for it.
std::string this_node_name()
{
    const std::string& name = runtime::Runtime::instance().identity().node_name;
    return name.empty() ? local_hostname() : name;
}

// "localhost" in a hostfile or --host list is the node prte runs on, as in PRRTE and mpirun:
// under its own name the master adopts it; as "localhost" it was a node to ssh to.
void name_local_node(std::vector<runtime::Node>& nodes)
{
    for (auto& node : nodes) {
        if (runtime::names_local_node(node.name)) node.name = this_node_name();
    }
}

std::vector<std::string> names_of(const std::vector<runtime::Node>& nodes)
{
    std::vector<std::string> names;
    for (const auto& node : nodes) names.push_back(node.name);
    return names;
}

// Reads a hostfile that must name at least one host: an empty one is almost surely a mistake,
// and silently falling back to another source would hide it.
Status read_nonempty_hostfile(const std::string& path, std::vector<runtime::Node>& out)
{
    std::vector<runtime::Node> nodes;
    if (Status st = runtime::read_hostfile(path, nodes); !st) return st;
    if (nodes.empty()) return {Errc::bad_file, fmt::format("hostfile '{}' lists no hosts", path)};
    verbose()(5, "hosts: {} node(s) from hostfile {}: {}", nodes.size(), path, util::compress_hostlist(names_of(nodes)));
    out.insert(out.end(), nodes.begin(), nodes.end());
    return {};
}

Status parse_hosts(const std::vector<std::string>& lists, std::string_view origin, std::vector<runtime::Node>& out)
{
    std::vector<runtime::Node> nodes;
    if (Status st = runtime::parse_host_list(lists, nodes); !st) return st;
    verbose()(5, "hosts: {} node(s) from {}: {}", nodes.size(), origin, util::compress_hostlist(names_of(nodes)));
    out.insert(out.end(), nodes.begin(), nodes.end());
    return {};
}

// Merges repeated names the way the pool does (a hostfile line refined by a later --host entry),
// so that a result never names one node twice.
std::vector<runtime::Node> merged(const std::vector<runtime::Node>& nodes)
{
    runtime::NodePool pool;
    for (const auto& node : nodes) pool.add(node);
    std::vector<runtime::Node> out;
    for (const runtime::Node* node : std::as_const(pool).nodes()) out.push_back(*node);
    return out;
}

Status not_mine(const runtime::AllocationRequest& request)
{
    return {Errc::take_next_option,
            fmt::format("ras/hosts serves only requests that name hosts; this '{}' request names none",
                        runtime::to_string(request.directive))};
}

}  // namespace

runtime::Node local_node()
{
    runtime::Node node;
    node.name = this_node_name();
    node.slots = count_local_cores();
    node.slots_given = false;
    return node;
}

HostsModule::HostsModule(std::string default_hostfile) : default_hostfile_(std::move(default_hostfile)) {}

Status HostsModule::allocate(const AllocateContext& context, runtime::NodePool& pool)
{
    std::vector<runtime::Node> nodes;
    if (!context.hostfile.empty()) {
        if (Status st = read_nonempty_hostfile(context.hostfile, nodes); !st) return st;
    }
    if (!context.hosts.empty()) {
        if (Status st = parse_hosts(context.hosts, "--host", nodes); !st) return st;
    }
    if (nodes.empty() && !default_hostfile_.empty()) {
        if (Status st = read_nonempty_hostfile(default_hostfile_, nodes); !st) return st;
    }
    name_local_node(nodes);
    if (nodes.empty()) {
        nodes.push_back(local_node());
        verbose()(5, "hosts: no --hostfile, --host or default hostfile: using the local node {} with {} slot(s)",
                  nodes.back().name, nodes.back().slots);
    }
    for (auto& node : nodes) {
        // A node is up only once its daemon reports; until then nobody knows.
        node.state = runtime::NodeState::unknown;
        node.ras_component = kComponentName;
        pool.add(node);
    }
    return {};
}

Status HostsModule::modify(const runtime::AllocationRequest& request, RequestCompletion&& completion)
{
    switch (request.directive) {
    case runtime::AllocDirective::new_allocation:
    case runtime::AllocDirective::extend:
        if (request.node_list.empty() && request.hostfile.empty()) return not_mine(request);
        return grow(request, std::move(completion));
    case runtime::AllocDirective::release:
        if (request.node_list.empty()) return not_mine(request);
        return release(request, std::move(completion));
    case runtime::AllocDirective::reacquire:
    case runtime::AllocDirective::cancel:
        break;
    }
    return not_mine(request);
}

// The request is taken: whatever happens now is reported through `completion`, and modify()
// returns success so that the caller does not report it a second time.
Status HostsModule::grow(const runtime::AllocationRequest& request, RequestCompletion completion)
{
    std::vector<runtime::Node> nodes;
    Status st;
    if (!request.hostfile.empty()) st = read_nonempty_hostfile(request.hostfile, nodes);
    if (st && !request.node_list.empty()) st = parse_hosts(request.node_list, "the request's node list", nodes);
    if (!st) {
        completion.complete({st, request.alloc_id, {}, {}});
        return {};
    }
    name_local_node(nodes);
    std::string alloc_id = request.alloc_id;
    // A new allocation needs a name by which it can later be released.
    if (alloc_id.empty() && request.directive == runtime::AllocDirective::new_allocation)
        alloc_id = fmt::format("hosts-{}", ++allocations_granted_);
    ModifyResult result{{}, alloc_id, merged(nodes), {}};
    for (auto& node : result.nodes_added) {
        node.state = runtime::NodeState::unknown;
        node.ras_component = kComponentName;
        node.alloc_id = alloc_id;
    }
    verbose()(5, "hosts: {} request granted {} node(s): {}", runtime::to_string(request.directive),
              result.nodes_added.size(), util::compress_hostlist(names_of(result.nodes_added)));
    completion.complete(std::move(result));
    return {};
}

Status HostsModule::release(const runtime::AllocationRequest& request, RequestCompletion completion)
{
    std::vector<std::string> names;
    for (const auto& entry : request.node_list) {
        Status st;
        if (entry.find(':') != std::string::npos)
            st = {Errc::bad_param, fmt::format("cannot release '{}': a release names hosts, without slot counts", entry)};
        else
            st = util::expand_hostlist(entry, names);
        if (!st) {
            completion.complete({st, request.alloc_id, {}, {}});
            return {};
        }
    }
    // A node named twice ("n[1-2],n2") is most likely a typo for another node: refuse it rather
    // than guess.
    std::vector<std::string> unique;
    for (auto& name : names) {
        if (std::find(unique.begin(), unique.end(), name) != unique.end()) {
            completion.complete({Status(Errc::bad_param, fmt::format("cannot release node {}: it is named twice in "
                                                                     "the node list", name)),
                                 request.alloc_id, {}, {}});
            return {};
        }
        unique.push_back(std::move(name));
    }
    verbose()(5, "hosts: release request for {} node(s): {}", unique.size(), util::compress_hostlist(unique));
    completion.complete({{}, request.alloc_id, {}, std::move(unique)});
    return {};
}

}  // namespace prte::ras::hosts
