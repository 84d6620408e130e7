#include "runtime/node.h"

#include <algorithm>

namespace prte::runtime {

const char* to_string(NodeState state)
{
    switch (state) {
    case NodeState::unknown: return "unknown";
    case NodeState::up: return "up";
    case NodeState::down: return "down";
    case NodeState::not_included: return "not included";
    case NodeState::added: return "added";
    case NodeState::joining: return "joining";
    case NodeState::departing: return "departing";
    }
    return "?";
}

Node& NodePool::add(const Node& node)
{
    if (Node* existing = find(node.name)) {
        if (node.slots_given) {
            existing->slots = node.slots;
            existing->slots_given = true;
        }
        if (node.slots_max > 0) existing->slots_max = node.slots_max;
        for (const auto& alias : node.aliases) existing->aliases.push_back(alias);
        // A node granted again comes in a new job of its resource manager.
        if (!node.scheduler_job.empty()) existing->scheduler_job = node.scheduler_job;
        return *existing;
    }
    nodes_.push_back(std::make_unique<Node>(node));
    return *nodes_.back();
}

Node* NodePool::find(const std::string& name)
{
    for (auto& n : nodes_) {
        if (n->name == name) return n.get();
        for (const auto& alias : n->aliases) {
            if (alias == name) return n.get();
        }
    }
    return nullptr;
}

const Node* NodePool::find(const std::string& name) const
{
    return const_cast<NodePool*>(this)->find(name);
}

std::vector<Node*> NodePool::nodes()
{
    std::vector<Node*> out;
    for (auto& n : nodes_) out.push_back(n.get());
    return out;
}

std::vector<const Node*> NodePool::nodes() const
{
    std::vector<const Node*> out;
    for (const auto& n : nodes_) out.push_back(n.get());
    return out;
}

uint32_t universe_size(const NodePool& pool, size_t job_size)
{
    uint64_t slots = 0;
    for (const Node* node : pool.nodes()) {
        if (node->state != NodeState::down && node->state != NodeState::not_included) {
            slots += static_cast<uint64_t>(std::max(node->slots, 0));
        }
    }
    return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(slots, job_size), UINT32_MAX));
}

}  // namespace prte::runtime
