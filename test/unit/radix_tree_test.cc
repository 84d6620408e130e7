// The daemon routing tree: its positional shape, next hops, promotion around departed ranks (one at a
// time and in batches), departures that outlive a grow, and a randomized check that every live daemon
// can reach every other one.
#include "rml/radix_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using prte::rml::kInvalidRank;
using prte::rml::Rank;
using prte::rml::RadixTree;
using Ranks = std::vector<Rank>;

// The testbed's tree from the spec: radix 2 over ten daemons, 0 1,2  1 3,4  2 5,6  3 7,8  4 9.
RadixTree testbed(Rank self) { return RadixTree(self, 10, 2); }

TEST(RadixTreeShape, RadixTwo)
{
    RadixTree tree = testbed(0);
    EXPECT_EQ(tree.parent_of(0), kInvalidRank);
    EXPECT_EQ(tree.children_of(0), (Ranks{1, 2}));
    EXPECT_EQ(tree.parent_of(1), 0u);
    EXPECT_EQ(tree.children_of(1), (Ranks{3, 4}));
    EXPECT_EQ(tree.children_of(3), (Ranks{7, 8}));
    EXPECT_EQ(tree.children_of(4), (Ranks{9}));
    EXPECT_EQ(tree.children_of(5), Ranks{});
    EXPECT_EQ(tree.parent_of(9), 4u);
    EXPECT_EQ(tree.parent_of(6), 2u);
    EXPECT_EQ(tree.live_count(), 10u);
    EXPECT_EQ(tree.depth(), 3u);
    EXPECT_EQ(tree.children(), (Ranks{1, 2}));
    EXPECT_EQ(tree.parent(), kInvalidRank);
}

TEST(RadixTreeShape, DepthOfSmallBinaryTrees)
{
    EXPECT_EQ(RadixTree(0, 7, 2).depth(), 2u);  // a full tree of three levels
    EXPECT_EQ(RadixTree(0, 8, 2).depth(), 3u);  // rank 7 starts a fourth
    EXPECT_EQ(RadixTree(0, 8, 2).children_of(3), (Ranks{7}));
}

TEST(RadixTreeShape, RadixSixtyFour)
{
    RadixTree tree(65, 100, 64);
    Ranks first_level;
    for (Rank r = 1; r <= 64; ++r) first_level.push_back(r);
    EXPECT_EQ(tree.children_of(0), first_level);
    Ranks under_one;
    for (Rank r = 65; r < 100; ++r) under_one.push_back(r);
    EXPECT_EQ(tree.children_of(1), under_one);
    EXPECT_EQ(tree.parent_of(64), 0u);
    EXPECT_EQ(tree.parent_of(99), 1u);
    EXPECT_EQ(tree.children_of(2), Ranks{});
    EXPECT_EQ(tree.depth(), 2u);
    EXPECT_EQ(tree.parent(), 1u);
    EXPECT_EQ(tree.children(), Ranks{});
}

TEST(RadixTreeShape, SizeOne)
{
    RadixTree tree(0, 1, 2);
    EXPECT_EQ(tree.parent(), kInvalidRank);
    EXPECT_EQ(tree.children(), Ranks{});
    EXPECT_EQ(tree.depth(), 0u);
    EXPECT_EQ(tree.live_count(), 1u);
    EXPECT_EQ(tree.next_hop(0), kInvalidRank);
    EXPECT_EQ(tree.subtree(0), Ranks{0});
}

TEST(RadixTreeShape, RadixZeroIsOne)
{
    RadixTree tree(2, 4, 0);
    EXPECT_EQ(tree.radix(), 1u);
    EXPECT_EQ(tree.parent(), 1u);
    EXPECT_EQ(tree.children(), Ranks{3});
    EXPECT_EQ(tree.depth(), 3u);
}

TEST(RadixTreeRoute, UpDownAndSideways)
{
    RadixTree three = testbed(3);
    EXPECT_EQ(three.next_hop(7), 7u);  // down to a child
    EXPECT_EQ(three.next_hop(1), 1u);  // up to the parent
    EXPECT_EQ(three.next_hop(0), 1u);  // up past the parent
    EXPECT_EQ(three.next_hop(4), 1u);  // sideways to a sibling goes through the parent
    EXPECT_EQ(three.next_hop(9), 1u);  // and to a sibling's child

    RadixTree one = testbed(1);
    EXPECT_EQ(one.next_hop(8), 3u);  // down through the child whose subtree holds it
    EXPECT_EQ(one.next_hop(9), 4u);
    EXPECT_EQ(one.next_hop(2), 0u);
    EXPECT_EQ(one.next_hop(6), 0u);

    RadixTree root = testbed(0);
    EXPECT_EQ(root.next_hop(8), 1u);
    EXPECT_EQ(root.next_hop(6), 2u);
    EXPECT_EQ(root.next_hop(0), kInvalidRank);  // self
}

TEST(RadixTreeDeparture, Leaf)
{
    RadixTree tree = testbed(3);
    EXPECT_EQ(tree.mark_departed({8}), 1u);
    EXPECT_EQ(tree.mark_departed({8}), 0u) << "already departed";
    EXPECT_TRUE(tree.departed(8));
    EXPECT_EQ(tree.children(), Ranks{7});
    EXPECT_EQ(tree.next_hop(8), kInvalidRank);
    EXPECT_EQ(tree.live_count(), 9u);
    EXPECT_EQ(tree.depth(), 3u);  // 7 is still three levels down
}

TEST(RadixTreeDeparture, InnerRankChildrenPromoted)
{
    RadixTree root = testbed(0);
    root.mark_departed({3});
    EXPECT_EQ(root.children_of(1), (Ranks{4, 7, 8}));
    EXPECT_EQ(root.parent_of(7), 1u);
    EXPECT_EQ(root.parent_of(3), kInvalidRank) << "a departed rank is out of the tree";
    EXPECT_EQ(root.children_of(3), Ranks{});
    EXPECT_EQ(root.next_hop(7), 1u);
    EXPECT_EQ(root.depth(), 3u);  // 0 -> 1 -> 4 -> 9

    RadixTree one = testbed(1);
    one.mark_departed({3});
    EXPECT_EQ(one.children(), (Ranks{4, 7, 8}));
    EXPECT_EQ(one.next_hop(7), 7u) << "the adopted child is reached directly by the new parent";
    EXPECT_EQ(one.next_hop(8), 8u);

    RadixTree seven = testbed(7);
    seven.mark_departed({3});
    EXPECT_EQ(seven.parent(), 1u);
    EXPECT_EQ(seven.next_hop(0), 1u);
    EXPECT_EQ(seven.next_hop(8), 1u);  // the sibling is now reached through the new parent
}

TEST(RadixTreeDeparture, WholeBranchInOneBatch)
{
    RadixTree tree = testbed(0);
    EXPECT_EQ(tree.mark_departed({3, 7, 8}), 3u);
    EXPECT_EQ(tree.children_of(1), Ranks{4});
    EXPECT_EQ(tree.subtree(1), (Ranks{1, 4, 9}));
    EXPECT_EQ(tree.live_count(), 7u);
    EXPECT_EQ(tree.depth(), 3u);  // 0 -> 1 -> 4 -> 9
    EXPECT_EQ(tree.departed_ranks(), (std::set<Rank>{3, 7, 8}));
}

TEST(RadixTreeDeparture, NestedDeparturesPromoteToNearestLiveAncestor)
{
    RadixTree tree = testbed(0);
    EXPECT_EQ(tree.mark_departed({1, 3}), 2u);
    // 1's live child 4 and departed 3's live children 7, 8 all go to 0.
    EXPECT_EQ(tree.children_of(0), (Ranks{2, 4, 7, 8}));
    EXPECT_EQ(tree.parent_of(8), 0u);
    EXPECT_EQ(tree.parent_of(9), 4u);
    EXPECT_EQ(tree.next_hop(9), 4u);
}

TEST(RadixTreeDeparture, SurvivesGrow)
{
    // A shrink followed by a grow: the new daemons are appended, and the hole stays routed around.
    RadixTree zero = testbed(0);
    zero.mark_departed({3});
    zero.resize(16);
    EXPECT_TRUE(zero.departed(3));
    EXPECT_EQ(zero.children_of(1), (Ranks{4, 7, 8}));
    EXPECT_EQ(zero.children_of(7), Ranks{15});
    EXPECT_EQ(zero.parent_of(15), 7u);
    EXPECT_EQ(zero.next_hop(15), 1u);
    EXPECT_EQ(zero.live_count(), 15u);

    RadixTree one = testbed(1);
    one.mark_departed({3});
    one.resize(16);
    EXPECT_EQ(one.next_hop(15), 7u);

    // A new daemon that only learns the hole from the rank span still agrees.
    RadixTree fresh(15, 16, 2);
    fresh.mark_departed({3});
    EXPECT_EQ(fresh.parent(), 7u);
    EXPECT_EQ(fresh.describe(), zero.describe());
}

TEST(RadixTreeDeparture, OutOfRangeRanksAreRememberedForLaterGrow)
{
    RadixTree tree = testbed(0);
    EXPECT_EQ(tree.mark_departed({12, kInvalidRank}), 1u);
    EXPECT_EQ(tree.live_count(), 10u);
    tree.resize(16);
    EXPECT_TRUE(tree.departed(12));
    EXPECT_EQ(tree.children_of(5), Ranks{11});
    EXPECT_EQ(tree.next_hop(12), kInvalidRank);
    EXPECT_EQ(tree.live_count(), 15u);
}

TEST(RadixTreeSubtree, Membership)
{
    RadixTree tree = testbed(0);
    EXPECT_EQ(tree.subtree(1), (Ranks{1, 3, 4, 7, 8, 9}));
    EXPECT_EQ(tree.subtree(0).size(), 10u);
    EXPECT_TRUE(tree.in_subtree(1, 9));
    EXPECT_TRUE(tree.in_subtree(1, 1));
    EXPECT_TRUE(tree.in_subtree(0, 6));
    EXPECT_FALSE(tree.in_subtree(2, 9));
    EXPECT_FALSE(tree.in_subtree(9, 4)) << "an ancestor is not in the subtree";
    EXPECT_FALSE(tree.in_subtree(1, 10));

    tree.mark_departed({3});
    EXPECT_EQ(tree.subtree(1), (Ranks{1, 4, 7, 8, 9}));
    EXPECT_EQ(tree.subtree(3), Ranks{});
    EXPECT_FALSE(tree.in_subtree(3, 7));
    EXPECT_FALSE(tree.in_subtree(1, 3));
    EXPECT_TRUE(tree.in_subtree(1, 7));
}

TEST(RadixTreeRoute, OutOfRangeAndDepartedTargets)
{
    RadixTree tree = testbed(1);
    EXPECT_EQ(tree.next_hop(10), kInvalidRank);
    EXPECT_EQ(tree.next_hop(kInvalidRank), kInvalidRank);
    EXPECT_EQ(tree.parent_of(10), kInvalidRank);
    EXPECT_EQ(tree.children_of(10), Ranks{});
    tree.mark_departed({9});
    EXPECT_EQ(tree.next_hop(9), kInvalidRank);

    RadixTree gone = testbed(3);
    gone.mark_departed({3});
    EXPECT_EQ(gone.next_hop(0), kInvalidRank) << "a departed daemon routes nothing";
    EXPECT_EQ(gone.parent(), kInvalidRank);
    EXPECT_EQ(gone.children(), Ranks{});
}

TEST(RadixTreeDeparture, MasterDeparts)
{
    RadixTree tree = testbed(1);
    EXPECT_EQ(tree.mark_departed({0}), 1u);
    EXPECT_TRUE(tree.departed(0));
    EXPECT_EQ(tree.parent_of(0), kInvalidRank);
    EXPECT_EQ(tree.parent_of(1), kInvalidRank) << "no live ancestor: the caller treats this as fatal";
    EXPECT_EQ(tree.parent_of(2), kInvalidRank);
    EXPECT_EQ(tree.parent_of(3), 1u);
    EXPECT_EQ(tree.live_count(), 9u);
    EXPECT_EQ(tree.next_hop(0), kInvalidRank);
    EXPECT_EQ(tree.next_hop(5), kInvalidRank) << "the other branch is unreachable";
    EXPECT_EQ(tree.next_hop(9), 4u) << "the own branch still routes";
}

TEST(RadixTreeDescribe, OneLinePerLiveRank)
{
    RadixTree tree(0, 4, 2);
    tree.mark_departed({1});
    EXPECT_EQ(tree.describe(), "0 -> -: 2,3\n2 -> 0: -\n3 -> 0: -\n");
}

// Where r's parent chain ends: 0 while the master lives, else the orphaned top of r's branch.
Rank top_of(const RadixTree& tree, Rank r)
{
    while (tree.parent_of(r) != kInvalidRank) r = tree.parent_of(r);
    return r;
}

// True when `ancestor` is on r's effective parent chain (r itself included).
bool climbs_to(const RadixTree& tree, Rank r, Rank ancestor)
{
    for (Rank cur = r; cur != kInvalidRank; cur = tree.parent_of(cur)) {
        if (cur == ancestor) return true;
    }
    return false;
}

// The effective parent by its definition, climbing the positional shape past departed ranks.
Rank reference_parent(const RadixTree& tree, Rank r)
{
    if (r == 0 || tree.departed(r)) return kInvalidRank;
    Rank p = (r - 1) / tree.radix();
    while (tree.departed(p)) {
        if (p == 0) return kInvalidRank;
        p = (p - 1) / tree.radix();
    }
    return p;
}

void check_structure(const RadixTree& tree)
{
    const uint32_t size = tree.size();
    uint32_t live = 0;
    for (Rank r = 0; r < size; ++r) {
        ASSERT_EQ(tree.parent_of(r), reference_parent(tree, r)) << "rank " << r;
        if (tree.departed(r)) continue;
        ++live;
        for (Rank c : tree.children_of(r)) ASSERT_EQ(tree.parent_of(c), r);
        Rank p = tree.parent_of(r);
        if (p != kInvalidRank) {
            Ranks siblings = tree.children_of(p);
            ASSERT_NE(std::find(siblings.begin(), siblings.end(), r), siblings.end());
        }
        // The parent chain ends at the master unless it has departed, and never loops.
        uint32_t steps = 0;
        for (Rank cur = r; tree.parent_of(cur) != kInvalidRank; cur = tree.parent_of(cur)) ASSERT_LE(++steps, size);
        if (!tree.departed(0)) {
            ASSERT_EQ(top_of(tree, r), 0u) << "rank " << r;
        }
    }
    ASSERT_EQ(tree.live_count(), live);
}

// Follows next_hop from `from` to `to`, each hop asked of the daemon it reached.
void check_route(const std::vector<RadixTree>& trees, Rank from, Rank to)
{
    const RadixTree& any = trees[from];
    const bool reachable = top_of(any, from) == top_of(any, to);
    Rank at = from;
    for (uint32_t steps = 0; steps <= any.size(); ++steps) {
        Rank hop = trees[at].next_hop(to);
        if (hop == kInvalidRank) {
            ASSERT_FALSE(reachable) << from << " -> " << to << " stuck at " << at;
            return;
        }
        ASSERT_FALSE(any.departed(hop));
        ASSERT_TRUE(hop == any.parent_of(at) || any.parent_of(hop) == at) << "a hop follows a tree edge";
        at = hop;
        if (at == to) return;
    }
    FAIL() << from << " -> " << to << " did not arrive within " << any.size() << " hops";
}

TEST(RadixTreeProperty, EveryLiveRankReachesEveryOther)
{
    std::mt19937 rng(20240613);
    for (uint32_t size = 1; size <= 40; ++size) {
        for (uint32_t radix = 1; radix <= 5; ++radix) {
            for (int trial = 0; trial < 4; ++trial) {
                SCOPED_TRACE("size " + std::to_string(size) + " radix " + std::to_string(radix) + " trial " +
                             std::to_string(trial));
                // Trial 0 keeps every rank; later ones drop up to half, and sometimes the master.
                Ranks gone;
                std::uniform_int_distribution<uint32_t> pick(0, size + 3);  // a few out of range too
                const uint32_t count = trial == 0 ? 0 : std::uniform_int_distribution<uint32_t>(0, size / 2)(rng);
                for (uint32_t i = 0; i < count; ++i) gone.push_back(pick(rng));
                if (trial == 3 && size > 1 && rng() % 4 == 0) gone.push_back(0);

                std::vector<RadixTree> trees;
                for (Rank self = 0; self < size; ++self) {
                    // Half the daemons learn the departures before a grow to `size`, as after a shrink.
                    RadixTree tree(self, self % 2 == 0 ? size : size / 2, radix);
                    tree.mark_departed(gone);
                    tree.resize(size);
                    trees.push_back(std::move(tree));
                }
                ASSERT_NO_FATAL_FAILURE(check_structure(trees[0]));
                for (Rank self = 1; self < size; ++self) ASSERT_EQ(trees[self].describe(), trees[0].describe());

                for (Rank from = 0; from < size; ++from) {
                    if (trees[0].departed(from)) continue;
                    for (Rank to = 0; to < size; ++to) {
                        if (to == from || trees[0].departed(to)) continue;
                        ASSERT_NO_FATAL_FAILURE(check_route(trees, from, to));
                        const bool below = climbs_to(trees[0], to, from);
                        ASSERT_EQ(trees[0].in_subtree(from, to), below) << from << " over " << to;
                        const Ranks sub = trees[0].subtree(from);
                        ASSERT_EQ(std::binary_search(sub.begin(), sub.end(), to), below);
                    }
                }
            }
        }
    }
}

}  // namespace

// Ranks a grow is still starting are routed around, like departed ones, but only until they are
// wired: two grows in flight at once may wire up in either order (rml/radix_tree.h, set_absent).
TEST(RadixTreeAbsent, RoutedAroundUntilPresent)
{
    // Radix 2 over 13 ranks: 5 is the shape parent of 11 and 12.
    prte::rml::RadixTree tree(0, 13, 2);
    tree.set_absent({5, 6});
    EXPECT_EQ(tree.parent_of(11), 2u);  // adopted by 5's parent while 5 is not running
    EXPECT_EQ(tree.parent_of(12), 2u);
    EXPECT_EQ(tree.parent_of(5), kInvalidRank);
    EXPECT_EQ(tree.next_hop(5), kInvalidRank);
    EXPECT_FALSE(tree.departed(5));
    EXPECT_EQ(tree.live_count(), 11u);
    tree.set_absent({});
    EXPECT_EQ(tree.parent_of(11), 5u);  // back in place once wired
    EXPECT_EQ(tree.next_hop(11), 2u);
    EXPECT_EQ(tree.live_count(), 13u);
}

TEST(RadixTreeAbsent, DepartedStaysDepartedWhatTheAbsentSetSays)
{
    prte::rml::RadixTree tree(0, 8, 2);
    tree.mark_departed({3});
    tree.set_absent({3, 4});
    tree.set_absent({});
    EXPECT_TRUE(tree.departed(3));
    EXPECT_EQ(tree.parent_of(7), 1u);  // 3's children still adopted by 1
    EXPECT_EQ(tree.parent_of(4), 1u);
}
