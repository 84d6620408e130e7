#include "mca/rmaps/base/rmaps_app_nodes.h"

#include <map>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "runtime/runtime.h"
#include "runtime/hostfile.h"
#include "util/strings.h"

namespace prte::rmaps::base {
namespace {

using runtime::AppContext;
using runtime::Node;
using runtime::NodePool;

// What one source (the hostfile, or the --host list) names, in the order written.
struct NamedHosts {
    bool given = false;
    std::string where;  // for messages: " (hostfile '/path')", or "" for --host
    std::vector<std::string> mentions;
    std::vector<runtime::Node> parsed;  // one per name, with the count given for it (merged)
};

Status read_named_hosts(const AppContext& app, NamedHosts& file, NamedHosts& list)
{
    // Slot counts never change the pool; a --host count caps the app's use of its node (caps_of).
    if (!app.hostfile.empty()) {
        if (Status st = runtime::read_hostfile(app.hostfile, file.parsed, file.mentions); !st) {
            return {st.code(), fmt::format("{}: {}", describe_app(app), st.message())};
        }
        if (file.mentions.empty()) {
            return {Errc::bad_file, fmt::format("{}: hostfile '{}' lists no hosts", describe_app(app), app.hostfile)};
        }
        file.given = true;
        file.where = fmt::format(" (hostfile '{}')", app.hostfile);
    }
    if (!app.hosts.empty()) {
        if (Status st = runtime::parse_host_list(app.hosts, list.parsed, list.mentions); !st) {
            return {st.code(), fmt::format("{}: --host: {}", describe_app(app), st.message())};
        }
        list.given = true;
    }
    return {};
}

// The pool node `name` means: "localhost" is the master's node (runtime::names_local_node),
// whatever the pool calls it.
Node* pool_node(NodePool& pool, const std::string& name)
{
    return pool.find(runtime::names_local_node(name) ? runtime::Runtime::instance().identity().node_name : name);
}

// The most slots the app may use on each node its --host list gave a count: "vm:2", or "vm,vm" (a
// repeated name is a count written out, as in a hostfile). PRRTE's hosts doc: the count is what
// to use there; the node's own slot count is the DVM's and stays.
std::map<const Node*, int> caps_of(NodePool& pool, const NamedHosts& list)
{
    std::map<const Node*, int> caps;
    for (const runtime::Node& given : list.parsed) {
        if (!given.slots_given) continue;
        if (Node* n = pool_node(pool, given.name)) caps[n] += given.slots;  // localhost and the node's own name: one node, counts added
    }
    return caps;
}

// The pool node of each mention, or an error listing (once each, in order) the names the DVM
// does not have.
Status find_in_pool(const AppContext& app, NodePool& pool, const NamedHosts& named, std::vector<Node*>& out)
{
    std::vector<std::string> missing;
    std::unordered_set<std::string> reported;
    for (const auto& name : named.mentions) {
        if (Node* n = pool_node(pool, name)) {
            out.push_back(n);
        } else if (reported.insert(name).second) {
            missing.push_back(name);
        }
    }
    if (missing.empty()) return {};
    return {Errc::not_found, fmt::format("{} asks for host(s) not in the DVM: {}{}", describe_app(app),
                                         util::join(missing, ", "), named.where)};
}

// Each node once, in order of first appearance, if `keep` accepts it.
template <typename Keep>
std::vector<Node*> distinct(const std::vector<Node*>& nodes, Keep keep)
{
    std::vector<Node*> out;
    std::unordered_set<Node*> seen;
    for (Node* n : nodes) {
        if (keep(*n) && seen.insert(n).second) out.push_back(n);
    }
    return out;
}

}  // namespace

Status resolve_app_nodes(const AppContext& app, NodePool& pool, const NodeFilter& filter, AppNodes& out)
{
    NamedHosts file, list;
    if (Status st = read_named_hosts(app, file, list); !st) return st;
    std::vector<Node*> from_file, from_list;
    if (Status st = find_in_pool(app, pool, file, from_file); !st) return st;
    if (Status st = find_in_pool(app, pool, list, from_list); !st) return st;

    std::unordered_set<const Node*> listed(from_list.begin(), from_list.end());
    if (file.given && list.given) {
        out.usable = distinct(from_file, [&](const Node& n) { return filter(n) && listed.count(&n) > 0; });
    } else if (file.given) {
        out.usable = distinct(from_file, filter);
    } else if (list.given) {
        out.usable = distinct(from_list, filter);
    } else {
        out.usable = distinct(pool.nodes(), filter);
    }
    out.named = file.given ? std::move(from_file) : std::move(from_list);
    out.slot_caps = caps_of(pool, list);

    if (out.usable.empty()) {
        std::string why = file.given && list.given
                              ? fmt::format(": none of the hosts its --host list names is a usable node of its "
                                            "hostfile '{}'",
                                            app.hostfile)
                              : "";
        return {Errc::out_of_resource, fmt::format("{} has no usable node to run on{}", describe_app(app), why)};
    }
    return {};
}

}  // namespace prte::rmaps::base
