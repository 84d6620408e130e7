// Host-list ranges: expansion, splitting, errors, and compression back to ranges.
#include "util/hostlist.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prte::Errc;
using prte::util::compress_hostlist;
using prte::util::expand_hostlist;
using prte::util::expand_hostname;
using prte::util::split_hostlist;
using Names = std::vector<std::string>;

Names expand(const std::string& text)
{
    Names out;
    prte::Status st = expand_hostlist(text, out);
    EXPECT_TRUE(st.ok()) << text << ": " << st.message();
    return out;
}

// The message of the error that expanding `text` gives; fails the test if it succeeds.
std::string error_of(const std::string& text)
{
    Names out{"untouched"};
    prte::Status st = expand_hostlist(text, out);
    EXPECT_FALSE(st.ok()) << text << " should not expand";
    EXPECT_EQ(st.code(), Errc::bad_param) << text;
    EXPECT_EQ(out, Names{"untouched"}) << "a failed expansion must leave the output alone";
    return st.message();
}

TEST(HostlistExpand, PlainNames)
{
    EXPECT_EQ(expand("node01"), Names{"node01"});
    EXPECT_EQ(expand("a,b,c"), (Names{"a", "b", "c"}));
    EXPECT_EQ(expand("host.example.org"), Names{"host.example.org"});
    EXPECT_EQ(expand("10.0.0.1,10.0.0.2"), (Names{"10.0.0.1", "10.0.0.2"}));
}

TEST(HostlistExpand, WhitespaceAroundEntriesIsIgnored)
{
    EXPECT_EQ(expand(" a , n[1-2] ,b "), (Names{"a", "n1", "n2", "b"}));
}

TEST(HostlistExpand, ZeroPaddedRangeKeepsItsWidth)
{
    EXPECT_EQ(expand("node[01-08]"),
              (Names{"node01", "node02", "node03", "node04", "node05", "node06", "node07", "node08"}));
    EXPECT_EQ(expand("n[098-101]"), (Names{"n098", "n099", "n100", "n101"}));
    EXPECT_EQ(expand("n[007]"), Names{"n007"});
}

TEST(HostlistExpand, UnpaddedRangeGrowsNaturally)
{
    EXPECT_EQ(expand("n[8-11]"), (Names{"n8", "n9", "n10", "n11"}));
    EXPECT_EQ(expand("n[0-2]"), (Names{"n0", "n1", "n2"}));
}

TEST(HostlistExpand, ListInsideBrackets)
{
    EXPECT_EQ(expand("n[1-3,7]"), (Names{"n1", "n2", "n3", "n7"}));
    EXPECT_EQ(expand("n[7,1-2]"), (Names{"n7", "n1", "n2"})) << "order as written";
    EXPECT_EQ(expand("n[01-02,5,10-11]"), (Names{"n01", "n02", "n5", "n10", "n11"}));
}

TEST(HostlistExpand, SuffixAfterBracket)
{
    EXPECT_EQ(expand("n[1-2].cluster"), (Names{"n1.cluster", "n2.cluster"}));
    EXPECT_EQ(expand("[1-2]x"), (Names{"1x", "2x"}));
}

TEST(HostlistExpand, SeveralBracketsGiveTheProductFirstSlowest)
{
    EXPECT_EQ(expand("rack[1-2]-n[01-02]"), (Names{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}));
    EXPECT_EQ(expand("r[1,3]c[1-2]n[5]"), (Names{"r1c1n5", "r1c2n5", "r3c1n5", "r3c2n5"}));
}

TEST(HostlistExpand, CommasInsideBracketsDoNotSplitTheList)
{
    EXPECT_EQ(expand("a,n[1,3],b"), (Names{"a", "n1", "n3", "b"}));
    EXPECT_EQ(expand("x[1-2],y[3,5]"), (Names{"x1", "x2", "y3", "y5"}));
}

TEST(HostlistExpand, DuplicatesAreKeptInOrder)
{
    EXPECT_EQ(expand("a,a,n[1-2,2]"), (Names{"a", "a", "n1", "n2", "n2"}));
}

TEST(HostlistExpand, AppendsToWhatIsThere)
{
    Names out{"first"};
    ASSERT_TRUE(expand_hostname("n[1-2]", out).ok());
    EXPECT_EQ(out, (Names{"first", "n1", "n2"}));
}

TEST(HostlistExpand, LargeButAllowedRange)
{
    Names out = expand("n[1-100000]");
    ASSERT_EQ(out.size(), 100000u);
    EXPECT_EQ(out.front(), "n1");
    EXPECT_EQ(out.back(), "n100000");
}

TEST(HostlistErrors, BackwardsRange)
{
    EXPECT_EQ(error_of("n[3-1]"), "bad host name 'n[3-1]': range 3-1 runs backwards");
}

TEST(HostlistErrors, UnclosedBracket)
{
    EXPECT_EQ(error_of("n[1-"), "bad host name 'n[1-': '[' at position 2 is never closed");
    EXPECT_EQ(error_of("a,n[1-2"), "bad host name 'n[1-2': '[' at position 2 is never closed");
}

TEST(HostlistErrors, CloseWithoutOpen)
{
    EXPECT_EQ(error_of("n1-2]"), "bad host name 'n1-2]': ']' at position 5 has no matching '['");
    EXPECT_EQ(error_of("n[1]]"), "bad host name 'n[1]]': ']' at position 5 has no matching '['");
}

TEST(HostlistErrors, NestedBracket)
{
    EXPECT_EQ(error_of("n[1[2]]"), "bad host name 'n[1[2]]': '[' at position 4 is inside another bracket");
}

TEST(HostlistErrors, EmptyBrackets)
{
    EXPECT_EQ(error_of("n[]"), "bad host name 'n[]': empty brackets '[]'");
}

TEST(HostlistErrors, EmptyElementInBrackets)
{
    EXPECT_EQ(error_of("n[1,,2]"), "bad host name 'n[1,,2]': empty element in '[1,,2]'");
    EXPECT_EQ(error_of("n[1,]"), "bad host name 'n[1,]': empty element in '[1,]'");
}

TEST(HostlistErrors, NotANumber)
{
    EXPECT_EQ(error_of("n[a-b]"), "bad host name 'n[a-b]': 'a' is not a number");
    EXPECT_EQ(error_of("n[1-b]"), "bad host name 'n[1-b]': 'b' is not a number");
    EXPECT_EQ(error_of("n[1-]"), "bad host name 'n[1-]': '' is not a number");
    EXPECT_EQ(error_of("n[-3]"), "bad host name 'n[-3]': '' is not a number");
    EXPECT_EQ(error_of("n[+3]"), "bad host name 'n[+3]': '+3' is not a number");
}

TEST(HostlistErrors, TooManyDashes)
{
    EXPECT_EQ(error_of("n[1-2-3]"), "bad host name 'n[1-2-3]': '1-2-3' is not a number or a range a-b");
}

TEST(HostlistErrors, NumberTooLarge)
{
    EXPECT_EQ(error_of("n[1-1234567890123456789]"),
              "bad host name 'n[1-1234567890123456789]': '1234567890123456789' is too large a number");
}

TEST(HostlistErrors, AbsurdExpansion)
{
    EXPECT_EQ(error_of("n[1-1000001]"), "bad host name 'n[1-1000001]': expands to more than 1000000 names");
    // Each bracket is small, the product is not.
    EXPECT_EQ(error_of("a[1-1000]b[1-1000]c[1-2]"),
              "bad host name 'a[1-1000]b[1-1000]c[1-2]': expands to more than 1000000 names");
    // Many huge ranges must not wrap a counter around to something small.
    std::string many = "n[";
    for (int i = 0; i < 30; ++i) many += std::string(i ? "," : "") + "0-999999999999999999";
    many += "]";
    EXPECT_NE(error_of(many).find("expands to more than 1000000 names"), std::string::npos);
}

TEST(HostlistErrors, ExactlyAtTheLimitIsAllowed)
{
    Names out;
    ASSERT_TRUE(expand_hostname("n[1-1000000]", out).ok());
    EXPECT_EQ(out.size(), 1000000u);
}

TEST(HostlistErrors, EmptyEntries)
{
    EXPECT_EQ(error_of(""), "empty entry in host list ''");
    EXPECT_EQ(error_of("a,,b"), "empty entry in host list 'a,,b'");
    EXPECT_EQ(error_of("a,"), "empty entry in host list 'a,'");
    Names out;
    prte::Status st = expand_hostname("  ", out);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_EQ(st.message(), "empty host name");
}

TEST(HostlistErrors, SpaceInsideAName)
{
    EXPECT_EQ(error_of("a,my host"), "bad host name 'my host': a host name cannot contain spaces");
    EXPECT_EQ(error_of("n[1, 2]x y"), "bad host name 'n[1, 2]x y': a host name cannot contain spaces");
}

TEST(HostlistErrors, ErrorNamesTheBadEntryOnly)
{
    EXPECT_EQ(error_of("good1,n[2-1],good2"), "bad host name 'n[2-1]': range 2-1 runs backwards");
}

TEST(HostlistSplit, SplitsAtTopLevelCommasOnly)
{
    EXPECT_EQ(split_hostlist("a,n[1,3],b"), (Names{"a", "n[1,3]", "b"}));
    EXPECT_EQ(split_hostlist("a"), Names{"a"});
    EXPECT_EQ(split_hostlist(" a ,, b "), (Names{"a", "", "b"}));
    EXPECT_EQ(split_hostlist("r[1,2]-n[3,4],x"), (Names{"r[1,2]-n[3,4]", "x"}));
}

TEST(HostlistCompress, GroupsRunsOfNumbers)
{
    EXPECT_EQ(compress_hostlist({"node01", "node02", "node03", "node07", "login"}), "node[01-03,07],login");
    EXPECT_EQ(compress_hostlist({"n3", "n1", "n2"}), "n[1-3]");
}

TEST(HostlistCompress, SingletonsAndPlainNamesPassThrough)
{
    EXPECT_EQ(compress_hostlist({}), "");
    EXPECT_EQ(compress_hostlist({"login"}), "login");
    EXPECT_EQ(compress_hostlist({"n5"}), "n5");
    EXPECT_EQ(compress_hostlist({"a", "n1", "b", "n2"}), "a,n[1-2],b");
}

TEST(HostlistCompress, DifferentWidthsAndPrefixesStayApart)
{
    EXPECT_EQ(compress_hostlist({"n9", "n10", "n11"}), "n9,n[10-11]");
    EXPECT_EQ(compress_hostlist({"a1", "b1", "a2", "b2"}), "a[1-2],b[1-2]");
    EXPECT_EQ(compress_hostlist({"rack1-n01", "rack1-n02", "rack2-n01"}), "rack1-n[01-02],rack2-n01");
}

TEST(HostlistCompress, DuplicatesAreDropped)
{
    EXPECT_EQ(compress_hostlist({"n1", "n1", "n2"}), "n[1-2]");
}

TEST(HostlistCompress, RoundTripsThroughExpansion)
{
    for (const char* text : {"node[001-128]", "n[1-3,5,7-9],login,x[01-02]", "a,b,c"}) {
        Names names = expand(text);
        EXPECT_EQ(expand(compress_hostlist(names)), names) << text;
    }
}

}  // namespace
