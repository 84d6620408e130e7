// The runtime-types fingerprint (util/layout_fingerprint.h, runtime/types_fingerprint.h): it must
// change whenever a listed type's layout changes, and the coverage check must see a member left out
// of a list. Two versions of a local struct stand for a runtime type before and after a change.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "util/layout_fingerprint.h"

namespace {

using prte::util::covers;
using prte::util::layout_fingerprint;
using prte::util::layout_of;

// "Version 1" of a type, and the ways a later version may differ from it.
struct Before {
    int slots;
    std::string name;
    bool given;
};
struct MemberAdded {  // a member in the middle: the later offsets move
    int slots;
    std::string alias;
    std::string name;
    bool given;
};
struct MemberRetyped {  // same size, same offsets, another type
    unsigned slots;
    std::string name;
    bool given;
};
struct MembersReordered {
    std::string name;
    int slots;
    bool given;
};
struct VectorElementChanged {  // a container's element type: same size everywhere
    int slots;
    std::vector<int> name;
    bool given;
};
struct VectorElementChangedLater {
    int slots;
    std::vector<long> name;
    bool given;
};

#define FIELDS3(T, a, b, c) PRTE_LAYOUT_FIELD(T, a), PRTE_LAYOUT_FIELD(T, b), PRTE_LAYOUT_FIELD(T, c)

constexpr auto before = layout_of<Before>(FIELDS3(Before, slots, name, given));
constexpr auto added = layout_of<MemberAdded>(PRTE_LAYOUT_FIELD(MemberAdded, slots), PRTE_LAYOUT_FIELD(MemberAdded, alias),
                                              PRTE_LAYOUT_FIELD(MemberAdded, name), PRTE_LAYOUT_FIELD(MemberAdded, given));
constexpr auto retyped = layout_of<MemberRetyped>(FIELDS3(MemberRetyped, slots, name, given));
constexpr auto reordered = layout_of<MembersReordered>(FIELDS3(MembersReordered, name, slots, given));
constexpr auto vector_int = layout_of<VectorElementChanged>(FIELDS3(VectorElementChanged, slots, name, given));
constexpr auto vector_long = layout_of<VectorElementChangedLater>(FIELDS3(VectorElementChangedLater, slots, name, given));

// A list of types as a framework header would expose them: the fingerprint of the whole list.
constexpr uint64_t list_before = layout_fingerprint(before, vector_int);

TEST(LayoutFingerprint, SameTypesSameValue)
{
    // Computed twice (as libprte and a component each do): equal.
    EXPECT_EQ(layout_fingerprint(layout_of<Before>(FIELDS3(Before, slots, name, given)), vector_int), list_before);
}

TEST(LayoutFingerprint, ChangesWithEveryKindOfLayoutChange)
{
    // The type names differ too (they are hashed); SeesTheLayoutNotTheName shows the numbers alone
    // change the value. Here each change is checked to be the one its name says.
    EXPECT_NE(added.fields[2].offset, before.fields[1].offset);
    EXPECT_NE(layout_fingerprint(added, vector_int), list_before);

    EXPECT_EQ(retyped.fields[0].offset, before.fields[0].offset);
    EXPECT_EQ(retyped.fields[0].size, before.fields[0].size);
    EXPECT_NE(retyped.fields[0].type, before.fields[0].type);
    EXPECT_NE(layout_fingerprint(retyped, vector_int), list_before);

    EXPECT_NE(reordered.fields[1].offset, before.fields[0].offset);  // slots
    EXPECT_NE(layout_fingerprint(reordered, vector_int), list_before);

    EXPECT_EQ(vector_long.size, vector_int.size);
    EXPECT_NE(layout_fingerprint(before, vector_long), list_before);

    // A type added to (or dropped from) the list, and the same types in another order.
    EXPECT_NE(layout_fingerprint(before), list_before);
    EXPECT_NE(layout_fingerprint(vector_int, before), list_before);
}

TEST(LayoutFingerprint, SeesTheLayoutNotTheName)
{
    // Same name spelling is impossible for two local types, so compare one type's layout with a
    // tampered copy of itself: only the offset of one member differs.
    auto moved = before;
    moved.fields[2].offset += 8;
    EXPECT_NE(layout_fingerprint(moved), layout_fingerprint(before));
    auto resized = before;
    resized.size += 8;
    EXPECT_NE(layout_fingerprint(resized), layout_fingerprint(before));
}

TEST(LayoutFingerprint, CoversSeesAMemberLeftOut)
{
    static_assert(covers(before));
    static_assert(covers(added));
    // `alias` not listed: the gap it leaves is seen. (A small member left out that sits where
    // padding would be, an int after `slots`, is not: util/layout_fingerprint.h says so.)
    struct TwoNames {
        int slots;
        std::string name;
        std::string alias;
        bool given;
    };
    constexpr auto missing_middle = layout_of<TwoNames>(PRTE_LAYOUT_FIELD(TwoNames, slots), PRTE_LAYOUT_FIELD(TwoNames, name),
                                                        PRTE_LAYOUT_FIELD(TwoNames, given));
    static_assert(!covers(missing_middle));
    static_assert(covers(layout_of<TwoNames>(PRTE_LAYOUT_FIELD(TwoNames, slots), PRTE_LAYOUT_FIELD(TwoNames, name),
                                             PRTE_LAYOUT_FIELD(TwoNames, alias), PRTE_LAYOUT_FIELD(TwoNames, given))));
    // The last member not listed: the type ends later than the list.
    constexpr auto missing_last = layout_of<Before>(PRTE_LAYOUT_FIELD(Before, slots), PRTE_LAYOUT_FIELD(Before, name));
    static_assert(!covers(missing_last));
    // Listed out of declaration order.
    constexpr auto out_of_order = layout_of<Before>(FIELDS3(Before, name, slots, given));
    static_assert(!covers(out_of_order));
    SUCCEED();
}

}  // namespace
