// pmi/simple's framing and encoding of the PMI-1 and PMI-2 wire protocols, and PMI_process_mapping.
#include <gtest/gtest.h>

#include <string>

#include "mca/pmi/simple/pmi_simple_mapping.h"
#include "mca/pmi/simple/pmi_simple_wire.h"

using namespace prte::pmi::simple;

namespace {

Decoder::Result next(Decoder& d, Command& c)
{
    std::string error;
    return d.next(c, error);
}

}  // namespace

TEST(PmiWire, V1LinesArriveInPieces)
{
    Decoder d(1024);
    std::string text = "cmd=put kvsname=kv key=k1 value=v1\ncmd=barrier_in\n";
    d.feed(text.data(), 10);
    Command c;
    EXPECT_EQ(next(d, c), Decoder::Result::need_more);
    d.feed(text.data() + 10, text.size() - 10);
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(c.name, "put");
    ASSERT_NE(c.find("value"), nullptr);
    EXPECT_EQ(*c.find("value"), "v1");
    EXPECT_EQ(*c.find("kvsname"), "kv");
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(c.name, "barrier_in");
    EXPECT_EQ(next(d, c), Decoder::Result::need_more);
}

TEST(PmiWire, V1RejectsWhatIsNotACommand)
{
    for (std::string bad : {"hello\n", "key=v cmd=put\n", "cmd= x=1\n", "cmd=put =v\n"}) {
        Decoder d(1024);
        d.feed(bad.data(), bad.size());
        Command c;
        std::string error;
        EXPECT_EQ(d.next(c, error), Decoder::Result::malformed) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
}

TEST(PmiWire, V1LineLongerThanTheLimitIsMalformed)
{
    Decoder d(64);
    std::string line = "cmd=put key=k value=" + std::string(100, 'x');  // no newline yet
    d.feed(line.data(), line.size());
    Command c;
    EXPECT_EQ(next(d, c), Decoder::Result::malformed);
}

TEST(PmiWire, V1MultiLineCommand)
{
    Decoder d(1024);
    std::string text = "mcmd=spawn\nnprocs=2\nexecname=./a\nendcmd\ncmd=finalize\n";
    d.feed(text.data(), text.size());
    Command c;
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(c.name, "spawn");
    EXPECT_TRUE(c.multi_line);
    EXPECT_EQ(*c.find("nprocs"), "2");
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(c.name, "finalize");
}

TEST(PmiWire, V2LengthPrefixedWithEscapedSemicolons)
{
    Decoder d(1024);
    d.set_wire(Wire::v2);
    std::string payload = "cmd=kvs-put;key=a;value=x;;y;";
    std::string text = std::to_string(payload.size()) + std::string(6 - std::to_string(payload.size()).size(), ' ') + payload;
    d.feed(text.data(), text.size());
    Command c;
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(c.name, "kvs-put");
    EXPECT_EQ(*c.find("value"), "x;y");
}

TEST(PmiWire, V2BadLengthIsMalformed)
{
    Decoder d(1024);
    d.set_wire(Wire::v2);
    d.feed("12x456cmd=finalize;", 19);
    Command c;
    EXPECT_EQ(next(d, c), Decoder::Result::malformed);
    Decoder big(16);
    big.set_wire(Wire::v2);
    big.feed("99999 cmd=finalize;", 19);
    EXPECT_EQ(next(big, c), Decoder::Result::malformed);
}

TEST(PmiWire, EncodeRoundTrips)
{
    EXPECT_EQ(encode(Wire::v1, "get_result", {{"rc", "0"}, {"value", "abc"}}), "cmd=get_result rc=0 value=abc\n");
    std::string v2 = encode(Wire::v2, "kvs-get-response", {{"found", "TRUE"}, {"value", "a;b"}});
    EXPECT_EQ(v2.substr(6), "cmd=kvs-get-response;found=TRUE;value=a;;b;");
    EXPECT_EQ(std::stoul(v2.substr(0, 6)), v2.size() - 6);
    Decoder d(1024);
    d.set_wire(Wire::v2);
    d.feed(v2.data(), v2.size());
    Command c;
    ASSERT_EQ(next(d, c), Decoder::Result::command);
    EXPECT_EQ(*c.find("value"), "a;b");
}

TEST(PmiMapping, BlocksAndCycles)
{
    EXPECT_EQ(process_mapping({"a", "a", "a", "a"}), "(vector,(0,1,4))");
    EXPECT_EQ(process_mapping({"a", "b", "c", "d"}), "(vector,(0,4,1))");
    EXPECT_EQ(process_mapping({"a", "a", "b", "b"}), "(vector,(0,2,2))");
    EXPECT_EQ(process_mapping({"a", "b", "a", "b"}), "(vector,(0,2,1),(0,2,1))");
    EXPECT_EQ(process_mapping({"a", "a", "a", "b"}), "(vector,(0,1,3),(1,1,1))");
}

// Random bytes in either framing: the decoder never crashes, never buffers beyond its limit, and
// stops at the first malformed command.
TEST(PmiWire, RandomBytesAreBoundedAndNeverCrash)
{
    unsigned state = 12345;
    auto next_byte = [&state] {
        state = state * 1103515245u + 12345u;
        const char alphabet[] = "cmd=put key value ;\n 0123456789=;;\x01\xff";
        return alphabet[(state >> 16) % (sizeof(alphabet) - 1)];
    };
    for (int round = 0; round < 2000; ++round) {
        Decoder d(256);
        if (round % 2) d.set_wire(Wire::v2);
        std::string bytes;
        for (int i = 0; i < 600; ++i) bytes.push_back(next_byte());
        d.feed(bytes.data(), bytes.size());
        Command c;
        std::string error;
        Decoder::Result r;
        int commands = 0;
        while ((r = d.next(c, error)) == Decoder::Result::command) ++commands;
        if (r == Decoder::Result::need_more) {
            EXPECT_LE(d.pending(), 256u + 6u) << "round " << round;
        } else {
            EXPECT_FALSE(error.empty()) << "round " << round;
        }
        EXPECT_LE(commands, 600);
    }
}
