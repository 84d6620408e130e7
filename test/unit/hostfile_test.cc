// Hostfile and --host parsing: every syntax form, merging of repeated names, and every error with
// its exact "file:line: reason" text.
#include "runtime/hostfile.h"

#include <gtest/gtest.h>

#include "temp_dir.h"
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using prte::Errc;
using prte::runtime::Node;
using prte::runtime::parse_host_list;
using prte::runtime::parse_hostfile;
using prte::runtime::read_hostfile;
using Nodes = std::vector<Node>;

using prte::test::TempDir;

Nodes parse(const std::string& text)
{
    Nodes out;
    prte::Status st = parse_hostfile(text, "hosts", out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
}

// The error a hostfile gives, checked to be a bad_file that leaves the output alone.
std::string file_error(const std::string& text)
{
    Nodes out(1);
    prte::Status st = parse_hostfile(text, "hosts", out);
    EXPECT_FALSE(st.ok()) << "should fail:\n" << text;
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(out.size(), 1u) << "a failed parse must leave the output alone";
    return st.message();
}

Nodes hosts(const std::string& list)
{
    Nodes out;
    prte::Status st = parse_host_list(list, out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
}

std::string host_error(const std::string& list)
{
    Nodes out;
    prte::Status st = parse_host_list(list, out);
    EXPECT_FALSE(st.ok()) << "should fail: " << list;
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_TRUE(out.empty());
    return st.message();
}

std::vector<std::string> names(const Nodes& nodes)
{
    std::vector<std::string> out;
    for (const auto& n : nodes) out.push_back(n.name);
    return out;
}

void expect_node(const Node& node, const std::string& name, int slots, bool given, int max = 0)
{
    EXPECT_EQ(node.name, name);
    EXPECT_EQ(node.slots, slots) << name;
    EXPECT_EQ(node.slots_given, given) << name;
    EXPECT_EQ(node.slots_max, max) << name;
}

TEST(Hostfile, BareNameHasOneUnstatedSlot)
{
    Nodes nodes = parse("node01\n");
    ASSERT_EQ(nodes.size(), 1u);
    expect_node(nodes[0], "node01", 1, false);
    EXPECT_EQ(nodes[0].state, prte::runtime::NodeState::unknown);
}

TEST(Hostfile, SlotsAndMaxSlots)
{
    Nodes nodes = parse("a slots=4\nb slots=2 max_slots=8\nc max-slots=3\nd count=6\ne max_slots=5 slots=5\n");
    ASSERT_EQ(nodes.size(), 5u);
    expect_node(nodes[0], "a", 4, true);
    expect_node(nodes[1], "b", 2, true, 8);
    expect_node(nodes[2], "c", 1, false, 3);
    expect_node(nodes[3], "d", 6, true);
    expect_node(nodes[4], "e", 5, true, 5);
}

TEST(Hostfile, SpacesAroundEqualsAndTabs)
{
    Nodes nodes = parse("a slots = 4\nb\tslots=2\t max_slots =3\nc slots= 7\n");
    ASSERT_EQ(nodes.size(), 3u);
    expect_node(nodes[0], "a", 4, true);
    expect_node(nodes[1], "b", 2, true, 3);
    expect_node(nodes[2], "c", 7, true);
}

TEST(Hostfile, CommentsBlankLinesAndCarriageReturns)
{
    Nodes nodes = parse("# the cluster\n\n   \n  # indented comment\na slots=2 # trailing comment\nb#no space\r\n"
                        "c slots=3\r\n");
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"a", "b", "c"}));
    expect_node(nodes[0], "a", 2, true);
    expect_node(nodes[1], "b", 1, false);
    expect_node(nodes[2], "c", 3, true);
}

TEST(Hostfile, EmptyTextHasNoNodes)
{
    EXPECT_TRUE(parse("").empty());
    EXPECT_TRUE(parse("# only a comment\n\n").empty());
}

TEST(Hostfile, NoFinalNewline)
{
    Nodes nodes = parse("a\nb slots=2");
    ASSERT_EQ(nodes.size(), 2u);
    expect_node(nodes[1], "b", 2, true);
}

TEST(Hostfile, UserIsStripped)
{
    Nodes nodes = parse("alice@node01 slots=2\nbob@n[1-2]\n");
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"node01", "n1", "n2"}));
    expect_node(nodes[0], "node01", 2, true);
}

TEST(Hostfile, RangesGiveOneNodeEach)
{
    Nodes nodes = parse("node[01-04] slots=2\nrack[1-2]-n[1-2]\n");
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"node01", "node02", "node03", "node04", "rack1-n1", "rack1-n2",
                                                      "rack2-n1", "rack2-n2"}));
    for (int i = 0; i < 4; ++i) expect_node(nodes[i], nodes[i].name, 2, true);
    expect_node(nodes[4], "rack1-n1", 1, false);
}

TEST(HostfileMerge, RepeatedBareNameCountsUp)
{
    Nodes nodes = parse("a\nb\na\na\n");
    ASSERT_EQ(nodes.size(), 2u);
    expect_node(nodes[0], "a", 3, true);
    expect_node(nodes[1], "b", 1, false);
}

TEST(HostfileMerge, LaterExplicitSlotsWin)
{
    Nodes nodes = parse("a slots=4\na slots=2\n");
    ASSERT_EQ(nodes.size(), 1u);
    expect_node(nodes[0], "a", 2, true);
}

TEST(HostfileMerge, ExplicitSlotsOverrideBareRepetitions)
{
    expect_node(parse("a\na\na slots=8\n").at(0), "a", 8, true);
    expect_node(parse("a slots=8\na\na\n").at(0), "a", 8, true);
}

TEST(HostfileMerge, MaxSlotsFromAnyLine)
{
    Nodes nodes = parse("a slots=2\na max_slots=4\n");
    ASSERT_EQ(nodes.size(), 1u);
    expect_node(nodes[0], "a", 2, true, 4);
}

TEST(HostfileMerge, RangeOverlappingAName)
{
    Nodes nodes = parse("n[1-3] slots=2\nn2 slots=5\n");
    ASSERT_EQ(nodes.size(), 3u);
    expect_node(nodes[1], "n2", 5, true);
}

TEST(HostfileMerge, OrderIsFirstAppearance)
{
    EXPECT_EQ(names(parse("c\na\nb\na\nc\n")), (std::vector<std::string>{"c", "a", "b"}));
}

TEST(HostfileMerge, AppendsAfterExistingOutput)
{
    Nodes out(1);
    out[0].name = "earlier";
    ASSERT_TRUE(parse_hostfile("a\n", "hosts", out).ok());
    EXPECT_EQ(names(out), (std::vector<std::string>{"earlier", "a"}));
}

// The order --map-by seq follows: one name per mention, repeats kept, ranges expanded.
TEST(HostfileMentions, EveryMentionInOrderWithRepeats)
{
    Nodes nodes;
    std::vector<std::string> mentions{"earlier"};
    ASSERT_TRUE(parse_hostfile("c\n# x\na slots=2\nn[1-2]\nc\n", "hosts", nodes, mentions).ok());
    EXPECT_EQ(mentions, (std::vector<std::string>{"earlier", "c", "a", "n1", "n2", "c"}));
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"c", "a", "n1", "n2"}));
}

TEST(HostfileMentions, UnchangedOnError)
{
    Nodes nodes;
    std::vector<std::string> mentions;
    EXPECT_FALSE(parse_hostfile("a\nb slots=x\n", "hosts", nodes, mentions).ok());
    EXPECT_TRUE(mentions.empty());
    EXPECT_FALSE(parse_host_list(std::vector<std::string>{"a,b:0"}, nodes, mentions).ok());
    EXPECT_TRUE(mentions.empty());
}

TEST(HostfileMentions, FromAFileAndFromHostLists)
{
    TempDir dir;
    Nodes nodes;
    std::vector<std::string> mentions;
    ASSERT_TRUE(read_hostfile(dir.write("h", "b\na\nb\n"), nodes, mentions).ok());
    EXPECT_EQ(mentions, (std::vector<std::string>{"b", "a", "b"}));
    mentions.clear();
    ASSERT_TRUE(parse_host_list(std::vector<std::string>{"b:2,a", "b,c[1-2]"}, nodes, mentions).ok());
    EXPECT_EQ(mentions, (std::vector<std::string>{"b", "a", "b", "c1", "c2"}));
}

TEST(HostfileErrors, UnknownKeyword)
{
    EXPECT_EQ(file_error("a\nb cores=4\n"), "hosts:2: unknown keyword 'cores=4' (expected slots=N or max_slots=N)");
}

TEST(HostfileErrors, SecondNameOnALine)
{
    EXPECT_EQ(file_error("a b\n"), "hosts:1: unexpected 'b': one host per line, followed only by slots=N or max_slots=N");
}

TEST(HostfileErrors, SlotsNotANumber)
{
    EXPECT_EQ(file_error("a slots=abc\n"), "hosts:1: 'slots=abc': 'abc' is not a whole number");
    EXPECT_EQ(file_error("a slots=4x\n"), "hosts:1: 'slots=4x': '4x' is not a whole number");
    EXPECT_EQ(file_error("a slots=\n"), "hosts:1: 'slots=': '' is not a whole number");
    EXPECT_EQ(file_error("a slots=1.5\n"), "hosts:1: 'slots=1.5': '1.5' is not a whole number");
    EXPECT_EQ(file_error("a max_slots=x\n"), "hosts:1: 'max_slots=x': 'x' is not a whole number");
}

TEST(HostfileErrors, SlotsZeroOrNegative)
{
    EXPECT_EQ(file_error("a slots=0\n"), "hosts:1: 'slots=0': the count must be at least 1");
    EXPECT_EQ(file_error("# c\n\na slots=-2\n"), "hosts:3: 'slots=-2': the count must be at least 1");
    EXPECT_EQ(file_error("a max-slots=0\n"), "hosts:1: 'max-slots=0': the count must be at least 1");
}

TEST(HostfileErrors, SlotsTooLarge)
{
    EXPECT_EQ(file_error("a slots=99999999999\n"), "hosts:1: 'slots=99999999999': the count must be at most 1000000000");
}

TEST(HostfileErrors, MaxSlotsBelowSlots)
{
    EXPECT_EQ(file_error("a slots=4 max_slots=2\n"), "hosts:1: max_slots=2 is less than slots=4");
    EXPECT_EQ(file_error("a max_slots=2 slots=4\n"), "hosts:1: max_slots=2 is less than slots=4");
}

TEST(HostfileErrors, MergeExceedsMaxSlots)
{
    EXPECT_EQ(file_error("a max_slots=2\na slots=3\n"), "hosts:2: host a now has slots=3, more than its max_slots=2");
    EXPECT_EQ(file_error("a max_slots=2\na\na\n"), "hosts:3: host a now has slots=3, more than its max_slots=2");
}

TEST(HostfileErrors, EmptyHostName)
{
    EXPECT_EQ(file_error("user@ slots=2\n"), "hosts:1: empty host name in 'user@'");
    EXPECT_EQ(file_error("slots=2\n"), "hosts:1: 'slots=2' comes before any host name");
}

TEST(HostfileErrors, BadRange)
{
    EXPECT_EQ(file_error("ok\nn[3-1] slots=2\n"), "hosts:2: bad host name 'n[3-1]': range 3-1 runs backwards");
    EXPECT_EQ(file_error("n[1-\n"), "hosts:1: bad host name 'n[1-': '[' at position 2 is never closed");
    EXPECT_EQ(file_error("n[]\n"), "hosts:1: bad host name 'n[]': empty brackets '[]'");
    EXPECT_EQ(file_error("n[a-b]\n"), "hosts:1: bad host name 'n[a-b]': 'a' is not a number");
    EXPECT_EQ(file_error("n[1-2000000]\n"), "hosts:1: bad host name 'n[1-2000000]': expands to more than 1000000 names");
}

TEST(HostfileErrors, LineNumbersCountCommentsAndBlankLines)
{
    EXPECT_EQ(file_error("# 1\n\na\n# 4\n\nb slots=x\n"), "hosts:6: 'slots=x': 'x' is not a whole number");
}

TEST(HostfileRead, ReadsAFile)
{
    TempDir dir;
    std::string file = dir.write("cluster", "# test\nnode[1-2] slots=2\nlogin\n");
    Nodes nodes;
    prte::Status st = read_hostfile(file, nodes);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"node1", "node2", "login"}));
    expect_node(nodes[0], "node1", 2, true);
}

TEST(HostfileRead, ErrorsNameTheFileAndLine)
{
    TempDir dir;
    std::string file = dir.write("bad", "a\nb\nc slots=0\n");
    Nodes nodes;
    prte::Status st = read_hostfile(file, nodes);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), file + ":3: 'slots=0': the count must be at least 1");
    EXPECT_TRUE(nodes.empty());
}

TEST(HostfileRead, MissingFile)
{
    TempDir dir;
    std::string file = dir.path("nonexistent");
    Nodes nodes;
    prte::Status st = read_hostfile(file, nodes);
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(), "cannot read hostfile '" + file + "': No such file or directory");
}

TEST(HostfileRead, DirectoryIsNotAHostfile)
{
    TempDir dir;
    std::string sub = dir.path("sub");
    ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
    Nodes nodes;
    prte::Status st = read_hostfile(sub, nodes);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), "cannot read hostfile '" + sub + "': Is a directory");
}

TEST(HostfileRead, UnreadableFile)
{
    if (geteuid() == 0) GTEST_SKIP() << "root can read a mode-000 file";
    TempDir dir;
    std::string file = dir.write("secret", "a\n");
    ASSERT_EQ(chmod(file.c_str(), 0), 0);
    Nodes nodes;
    prte::Status st = read_hostfile(file, nodes);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), "cannot read hostfile '" + file + "': Permission denied");
}

TEST(HostList, NamesAndSlotCounts)
{
    Nodes nodes = hosts("a:2,b,c:4");
    ASSERT_EQ(nodes.size(), 3u);
    expect_node(nodes[0], "a", 2, true);
    expect_node(nodes[1], "b", 1, false);
    expect_node(nodes[2], "c", 4, true);
}

TEST(HostList, RangesWithSlotCounts)
{
    Nodes nodes = hosts("node[01-03]:2,n[1,3]");
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"node01", "node02", "node03", "n1", "n3"}));
    expect_node(nodes[2], "node03", 2, true);
    expect_node(nodes[3], "n1", 1, false);
}

TEST(HostList, UserIsStripped)
{
    Nodes nodes = hosts("alice@a:3,bob@b");
    EXPECT_EQ(names(nodes), (std::vector<std::string>{"a", "b"}));
    expect_node(nodes[0], "a", 3, true);
}

TEST(HostList, RepeatedNamesMerge)
{
    Nodes nodes = hosts("a,b,a");
    ASSERT_EQ(nodes.size(), 2u);
    expect_node(nodes[0], "a", 2, true);
    expect_node(hosts("a:2,a:5").at(0), "a", 5, true);
    expect_node(hosts("a:2,a").at(0), "a", 2, true);
}

TEST(HostList, SeveralListsMergeAsOne)
{
    Nodes out;
    ASSERT_TRUE(parse_host_list(std::vector<std::string>{"a,b:2", "c", "a"}, out).ok());
    EXPECT_EQ(names(out), (std::vector<std::string>{"a", "b", "c"}));
    expect_node(out[0], "a", 2, true);
}

TEST(HostListErrors, BadSlotCounts)
{
    EXPECT_EQ(host_error("a:0"), "bad host entry 'a:0': the count must be at least 1");
    EXPECT_EQ(host_error("a:-1"), "bad host entry 'a:-1': the count must be at least 1");
    EXPECT_EQ(host_error("b,a:x"), "bad host entry 'a:x': 'x' is not a whole number");
    EXPECT_EQ(host_error("a:"), "bad host entry 'a:': no slot count after ':'");
    EXPECT_EQ(host_error("a:*"), "bad host entry 'a:*': '*' is not a whole number");
}

TEST(HostListErrors, EmptyNames)
{
    EXPECT_EQ(host_error(":2"), "bad host entry ':2': empty host name");
    EXPECT_EQ(host_error("u@"), "bad host entry 'u@': empty host name");
    EXPECT_EQ(host_error("a,,b"), "empty entry in host list 'a,,b'");
    EXPECT_EQ(host_error(""), "empty entry in host list ''");
}

TEST(HostListErrors, BadRanges)
{
    EXPECT_EQ(host_error("n[3-1]:2"), "bad host name 'n[3-1]': range 3-1 runs backwards");
    EXPECT_EQ(host_error("n[1-"), "bad host name 'n[1-': '[' at position 2 is never closed");
}

}  // namespace
