// The radix routing tree over daemon ranks: which daemon relays a message to which. Rank 0 (the
// master) is the root and the shape is positional (a k-ary heap), so every daemon computes the same
// tree from the rank-space size and the radix alone, with no messages.
//
// Departed ranks (daemons lost or shrunk away) stay in the rank space: a grow appends ranks, it
// never reuses a vacated one, because non-ssh launchers start daemons as one sequential rank range.
// So the tree routes around the holes by promotion, and the set of departed ranks is kept for the
// life of the tree - a recomputation after a grow must still route around every rank that ever
// left (spec: collective-shrink-completion.txt, the re-grow paragraphs; a per-event failed set that
// a recompute wiped is the bug they describe). A whole shrink campaign is marked in one call, so
// the tree is repaired once per campaign rather than once per daemon.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/node.h"

namespace prte::rml {

using prte::runtime::kInvalidRank;
using prte::runtime::Rank;

// The shape: the parent of r (r > 0) is (r-1)/radix, its children r*radix+1 .. r*radix+radix
// (those < size). The effective tree, the one messages follow, skips departed ranks: a departed
// rank's live children (and, recursively, the live descendants of its departed children) are
// adopted by its nearest live ancestor. A departed rank is not in the effective tree at all: it has
// no effective parent, no children and no route.
class RadixTree {
  public:
    RadixTree(Rank self, uint32_t size, uint32_t radix);  // radix < 1 is treated as 1

    Rank self() const { return self_; }
    uint32_t size() const { return size_; }
    uint32_t radix() const { return radix_; }

    // New ranks are added at the end (a smaller size drops the end). The departed set is kept.
    void resize(uint32_t size);

    // Marks ranks departed, all in one pass (one repair for a whole batch). Ranks out of range are
    // recorded too, since a later resize must still treat them as gone; kInvalidRank, which names
    // no daemon, is ignored. Returns how many were newly departed.
    size_t mark_departed(const std::vector<Rank>& ranks);
    bool departed(Rank r) const { return departed_.count(r) != 0; }
    const std::set<Rank>& departed_ranks() const { return departed_; }

    // Ranks given to daemons a grow is still starting: routed around like departed ones until
    // they are wired, but not for ever (a rank in the set given last time and not now comes back).
    // Two grows in flight at once wire up in any order, and the later ranks of one may sit below
    // the not-yet-running ranks of the other in the positional tree.
    // Returns false when the set was already this one (nothing rebuilt).
    bool set_absent(const std::set<Rank>& ranks);
    bool absent(Rank r) const { return absent_.count(r) != 0; }

    // Effective parent of r: its nearest live ancestor. kInvalidRank for the root, for r departed or
    // out of range, and for every rank once the master (0) has departed - it has no live ancestor
    // left, and callers treat that as fatal.
    Rank parent_of(Rank r) const;
    Rank parent() const { return parent_of(self_); }

    // Effective children of r (live only, with promotion), ascending; empty for r departed.
    std::vector<Rank> children_of(Rank r) const;
    std::vector<Rank> children() const { return children_of(self_); }

    // True when r is in subtree(root): r is live and is `root` or an effective descendant of it.
    bool in_subtree(Rank root, Rank r) const;
    // Live ranks of the effective subtree rooted at r (r included if live), ascending.
    std::vector<Rank> subtree(Rank r) const;

    // Next hop from self() towards target: the target itself if it is an effective child or the
    // parent, the effective child whose subtree holds the target, otherwise the parent.
    // kInvalidRank when target is self, departed or out of range, when self is departed or out of
    // range, or when no route exists (self is the root and the target is not below it).
    Rank next_hop(Rank target) const;

    // Number of live ranks in [0, size).
    uint32_t live_count() const { return live_count_; }
    // Depth of the effective tree: the longest parent chain of a live rank (root alone = 0).
    uint32_t depth() const { return depth_; }

    // One line per live rank, "rank -> parent: children" ("-" for none), for verbose output.
    std::string describe() const;

  private:
    bool in_range(Rank r) const { return r < size_; }
    bool live(Rank r) const { return in_range(r) && !departed(r) && !absent(r); }
    // Recomputes the cached effective tree; O(size), run after every change of size or departures
    // so that queries (next_hop above all) only read.
    void rebuild();

    Rank self_;
    uint32_t size_;
    uint32_t radix_;
    std::set<Rank> departed_;
    std::set<Rank> absent_;

    // Cached effective tree, indexed by rank.
    std::vector<Rank> parent_;
    std::vector<std::vector<Rank>> children_;
    uint32_t live_count_ = 0;
    uint32_t depth_ = 0;
};

}  // namespace prte::rml
