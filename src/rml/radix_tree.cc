#include "rml/radix_tree.h"

#include <algorithm>

namespace prte::rml {
namespace {

// Parent in the positional shape, before any departure is taken into account.
Rank shape_parent(Rank r, uint32_t radix) { return r == 0 ? kInvalidRank : (r - 1) / radix; }

}  // namespace

RadixTree::RadixTree(Rank self, uint32_t size, uint32_t radix)
    : self_(self), size_(size), radix_(std::max<uint32_t>(radix, 1))
{
    rebuild();
}

void RadixTree::resize(uint32_t size)
{
    size_ = size;
    rebuild();
}

size_t RadixTree::mark_departed(const std::vector<Rank>& ranks)
{
    size_t added = 0;
    for (Rank r : ranks) {
        if (r != kInvalidRank && departed_.insert(r).second) ++added;
    }
    // One repair for the whole batch (spec: collective-shrink-completion.txt, "Batch routing-tree
    // repair"), and none when nothing changed.
    if (added != 0) rebuild();
    return added;
}

bool RadixTree::set_absent(const std::set<Rank>& ranks)
{
    if (ranks == absent_) return false;
    absent_ = ranks;
    rebuild();
    return true;
}

void RadixTree::rebuild()
{
    parent_.assign(size_, kInvalidRank);
    children_.assign(size_, {});
    live_count_ = 0;
    depth_ = 0;

    // A shape parent is always a smaller rank, so one ascending pass sees every rank's ancestors
    // before the rank itself. nearest_live[r] is r when r is live, else its nearest live ancestor:
    // the rank that adopts r's live children.
    std::vector<Rank> nearest_live(size_, kInvalidRank);
    std::vector<uint32_t> depth(size_, 0);
    for (Rank r = 0; r < size_; ++r) {
        Rank above = shape_parent(r, radix_);
        Rank adopter = above == kInvalidRank ? kInvalidRank : nearest_live[above];
        if (departed(r) || absent(r)) {
            nearest_live[r] = adopter;
            continue;
        }
        nearest_live[r] = r;
        ++live_count_;
        parent_[r] = adopter;
        if (adopter == kInvalidRank) continue;  // the root, or orphaned by the master's departure
        children_[adopter].push_back(r);        // ascending, since r only grows
        depth[r] = depth[adopter] + 1;
        depth_ = std::max(depth_, depth[r]);
    }
}

Rank RadixTree::parent_of(Rank r) const { return in_range(r) ? parent_[r] : kInvalidRank; }

std::vector<Rank> RadixTree::children_of(Rank r) const { return in_range(r) ? children_[r] : std::vector<Rank>{}; }

bool RadixTree::in_subtree(Rank root, Rank r) const
{
    if (!live(r) || !live(root)) return false;
    for (Rank cur = r; cur != kInvalidRank; cur = parent_[cur]) {
        if (cur == root) return true;
    }
    return false;
}

std::vector<Rank> RadixTree::subtree(Rank r) const
{
    std::vector<Rank> out;
    if (!live(r)) return out;
    out.push_back(r);
    for (size_t i = 0; i < out.size(); ++i) {
        const auto& kids = children_[out[i]];
        out.insert(out.end(), kids.begin(), kids.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

Rank RadixTree::next_hop(Rank target) const
{
    if (target == self_ || !live(target) || !live(self_)) return kInvalidRank;
    // Climb from the target: if the climb meets self, the rank just below self on the way is the
    // child to send through; otherwise the target is elsewhere and the message goes up.
    Rank below = target;
    for (Rank cur = parent_[target]; cur != kInvalidRank; cur = parent_[cur]) {
        if (cur == self_) return below;
        below = cur;
    }
    return parent_[self_];
}

std::string RadixTree::describe() const
{
    std::string out;
    for (Rank r = 0; r < size_; ++r) {
        if (departed(r) || absent(r)) continue;
        out += std::to_string(r) + " -> ";
        out += parent_[r] == kInvalidRank ? "-" : std::to_string(parent_[r]);
        out += ":";
        if (children_[r].empty()) out += " -";
        for (size_t i = 0; i < children_[r].size(); ++i) {
            out += (i == 0 ? " " : ",") + std::to_string(children_[r][i]);
        }
        out += "\n";
    }
    return out;
}

}  // namespace prte::rml
