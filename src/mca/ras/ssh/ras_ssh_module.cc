#include "mca/ras/ssh/ras_ssh_module.h"

#include <algorithm>

#include <fmt/format.h>

#include "mca/ras/base/ras_base.h"
#include "runtime/runtime.h"
#include "runtime/hostfile.h"
#include "util/hostlist.h"
#include "util/strings.h"

namespace prte::ras::ssh {
namespace {

const output::VerboseStream& verbose() { return base::framework().verbose(); }

Status pass(const std::string& why) { return {Errc::take_next_option, why}; }

// A host of the pool already running a daemon of the DVM (it was in the DVM's own hostfile, say)
// is not spare, lent or not.
bool in_dvm(const std::string& name)
{
    const runtime::Node* node = std::as_const(runtime::Runtime::instance().pool()).find(name);
    return node && node->daemon_launched && node->state != runtime::NodeState::down &&
           node->state != runtime::NodeState::departing;
}

}  // namespace

Status SshPoolModule::load()
{
    if (loaded_) return {};
    if (pool_file_.empty()) return {};
    if (Status st = runtime::read_hostfile(pool_file_, hosts_); !st) {
        return {st.code(), fmt::format("ras_ssh_pool: {}", st.message())};
    }
    loaded_ = true;
    verbose()(5, "ssh: pool {} holds {} host(s)", pool_file_, hosts_.size());
    return {};
}

std::vector<std::string> SshPoolModule::spare() const
{
    std::vector<std::string> out;
    for (const auto& h : hosts_) {
        if (!lent_.count(h.name) && !in_dvm(h.name)) out.push_back(h.name);
    }
    return out;
}

std::optional<std::vector<int>> SshPoolModule::lendable_slots() noexcept
{
    if (pool_file_.empty() || !load()) return std::nullopt;
    std::vector<int> slots;
    for (const auto& h : hosts_) {
        if (!lent_.count(h.name) && !in_dvm(h.name)) slots.push_back(h.slots_given ? h.slots : 0);
    }
    return slots;
}

Status SshPoolModule::allocate(const AllocateContext&, runtime::NodePool&)
{
    return pass("ras/ssh lends hosts as the DVM grows; it supplies none at start-up");
}

Status SshPoolModule::modify(const runtime::AllocationRequest& request, RequestCompletion&& completion)
{
    if (request.directive != runtime::AllocDirective::new_allocation &&
        request.directive != runtime::AllocDirective::extend) {
        return pass("ras/ssh only lends hosts");
    }
    if (Status st = load(); !st) {
        completion.complete({st, request.alloc_id, {}, {}});
        return {};
    }
    std::vector<std::string> wanted;
    if (!request.node_list.empty()) {
        for (const auto& entry : request.node_list) {
            if (Status st = util::expand_hostlist(entry, wanted); !st) return pass("not a plain node list");
        }
        for (const auto& name : wanted) {
            auto it = std::find_if(hosts_.begin(), hosts_.end(), [&](const runtime::Node& h) { return h.name == name; });
            if (it == hosts_.end()) return pass(fmt::format("{} is not a host of the ssh pool", name));
        }
    } else if (request.num_nodes > 0) {
        if (hosts_.empty()) {
            completion.complete({Status(Errc::out_of_resource,
                                        "growing by a number of nodes needs a pool of spare hosts: set ras_ssh_pool "
                                        "to a hostfile naming them"),
                                 request.alloc_id, {}, {}});
            return {};
        }
        std::vector<std::string> free = spare();
        if (free.size() < request.num_nodes) {
            completion.complete({Status(Errc::out_of_resource,
                                        fmt::format("the ssh pool ({}) has {} spare host(s), {} asked for", pool_file_,
                                                    free.size(), request.num_nodes)),
                                 request.alloc_id, {}, {}});
            return {};
        }
        wanted.assign(free.begin(), free.begin() + static_cast<long>(request.num_nodes));
    } else {
        return pass("the request names no node and no number of nodes");
    }
    std::string alloc_id = request.alloc_id;
    if (alloc_id.empty()) alloc_id = fmt::format("ssh-{}", ++allocations_granted_);
    ModifyResult result{{}, alloc_id, {}, {}};
    for (const auto& name : wanted) {
        auto it = std::find_if(hosts_.begin(), hosts_.end(), [&](const runtime::Node& h) { return h.name == name; });
        runtime::Node node = *it;
        node.state = runtime::NodeState::unknown;
        node.ras_component = kComponentName;
        node.alloc_id = alloc_id;
        result.nodes_added.push_back(node);
        lent_.insert(name);
    }
    verbose()(5, "ssh: lends {} host(s) for allocation {}: {}; {} spare", wanted.size(), alloc_id,
              util::join(wanted, ", "), spare().size());
    completion.complete(std::move(result));
    return {};
}

void SshPoolModule::take_back(const std::vector<std::string>& names, const runtime::NodePool& pool)
{
    std::vector<std::string> mine;
    for (const auto& name : names) {
        const runtime::Node* node = pool.find(name);
        if (node && node->ras_component == kComponentName && lent_.erase(name)) mine.push_back(name);
    }
    if (!mine.empty()) {
        verbose()(5, "ssh: {} host(s) back in the pool: {}; {} spare", mine.size(), util::join(mine, ", "),
                  spare().size());
    }
}

void SshPoolModule::shrink_complete(const runtime::ShrinkCampaign& campaign, const runtime::NodePool& pool) noexcept
{
    take_back(campaign.target_nodes, pool);
}

void SshPoolModule::grow_failed(const std::vector<std::string>& nodes, const runtime::NodePool& pool) noexcept
{
    take_back(nodes, pool);
}

}  // namespace prte::ras::ssh
