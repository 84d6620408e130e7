// The wire format's reader (src/rml/buffer.cc) facing bytes from another daemon: round trips, a
// message cut short anywhere, and values whose claims do not match the bytes there - a string or
// byte object claiming more than is left (PMIx 4.2 would allocate the claim first), a string with
// no NUL or one inside, a negative length, a value count other than one - each refused with one
// line naming the message, the field and where it starts, and without allocating or leaking what
// the claim says.
#include "rml/buffer.h"

#include <malloc.h>
#include <pmix.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pmix_server_env.h"

namespace {

using prte::rml::Payload;
using prte::rml::Reader;
using prte::rml::Writer;

Payload raw(const std::string& bytes) { return Payload(bytes.begin(), bytes.end()); }

Payload operator+(Payload a, const Payload& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Bytes the C library has handed out and not taken back, mapped chunks included.
int64_t heap_in_use()
{
    struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.hblkhd + m.uordblks);
}

// The crafted messages below put a length in front of bytes the way PMIx does; these two tests
// check that layout instead of assuming it (a string: an int32 length counting the NUL, then the
// bytes; a byte object: a size, then the bytes).
TEST(WireLayout, AStringIsItsLengthThenItsBytes)
{
    EXPECT_EQ(Writer().str("ab").take(), Writer().i32(3).take() + raw(std::string("ab\0", 3)));
}

TEST(WireLayout, AByteObjectIsItsSizeThenItsBytes)
{
    Payload xyz = raw("xyz");
    EXPECT_EQ(Writer().bytes(xyz).take(), Writer().u64(3).take() + xyz);
}

TEST(Reader, RoundTripsEveryType)
{
    Payload blob = {0, 1, 2, 255};
    Payload in = Writer()
                     .u8(200)
                     .u32(4000000000u)
                     .i32(-7)
                     .u64(1ull << 40)
                     .str("node01")
                     .str("")
                     .bytes(blob)
                     .bytes(Payload{})
                     .strings({"a", "", "c"})
                     .take();
    Reader r(in, "sample");
    EXPECT_EQ(r.u8(), 200);
    EXPECT_EQ(r.u32(), 4000000000u);
    EXPECT_EQ(r.i32(), -7);
    EXPECT_EQ(r.u64(), 1ull << 40);
    EXPECT_EQ(r.str(), "node01");
    EXPECT_EQ(r.str(), "");
    EXPECT_EQ(r.bytes(), blob);
    EXPECT_EQ(r.bytes(), Payload{});
    EXPECT_EQ(r.strings(), (std::vector<std::string>{"a", "", "c"}));
    EXPECT_TRUE(r.ok()) << r.error();
    EXPECT_TRUE(r.at_end());
}

TEST(Reader, ErrorNamesTheMessageTheFieldAndWhereItStarts)
{
    Payload in = Writer().u32(5).take();  // then nothing where a string belongs
    Reader r(in, "launch message");
    r.u32();
    EXPECT_EQ(r.str(), "");
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "launch message: field 2 (string) at byte 2: the message ends early");
    r.u64();  // a failed reader stays failed on its first error
    EXPECT_EQ(r.error(), "launch message: field 2 (string) at byte 2: the message ends early");
}

// Cut anywhere, a message fails on one line, never reads past its end.
TEST(Reader, EveryTruncationFailsCleanly)
{
    Payload full = Writer().u8(1).str("nspace-1").u32(77).bytes(raw("output")).strings({"x", "yz"}).i32(-1).take();
    for (size_t cut = 0; cut < full.size(); ++cut) {
        Payload part(full.begin(), full.begin() + cut);
        Reader r(part, "cut");
        r.u8();
        r.str();
        r.u32();
        r.bytes();
        r.strings();
        r.i32();
        EXPECT_FALSE(r.ok()) << "cut at " << cut;
        EXPECT_EQ(r.error().rfind("cut: field ", 0), 0u) << r.error();
        EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
    }
}

// PMIx 4.2 allocates the length a string claims before it reads the string: a few bytes claiming
// 256 MiB must be refused before PMIx sees them, and nothing of the claim allocated or kept.
TEST(Reader, AStringClaimingMoreThanIsLeftIsRefusedWithoutAllocatingTheClaim)
{
    Payload in = Writer().i32(256 << 20).take() + raw("abc");
    int64_t before = heap_in_use();
    {
        Reader r(in, "test message");
        EXPECT_EQ(r.str(), "");
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error(), "test message: field 1 (string) at byte 0: claims 268435456 bytes but only 3 are left");
    }
    EXPECT_LT(heap_in_use() - before, 1 << 20) << "the claimed length was allocated and kept";
}

TEST(Reader, AByteObjectClaimingMoreThanIsLeftIsRefusedWithoutAllocatingTheClaim)
{
    Payload in = Writer().u64(256 << 20).take() + raw("abc");
    int64_t before = heap_in_use();
    {
        Reader r(in, "test message");
        EXPECT_EQ(r.bytes(), Payload{});
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error(), "test message: field 1 (bytes) at byte 0: claims 268435456 bytes but only 3 are left");
    }
    EXPECT_LT(heap_in_use() - before, 1 << 20) << "the claimed length was allocated and kept";
}

// A string whose value count says two: PMIx unpacks the first into memory it allocates, then
// reports that one was asked for. A reader that fails must still free what PMIx gave it.
TEST(Reader, AFailedStringReadFreesWhatPmixAllocated)
{
    std::string big(1 << 20, 'a');
    char* two[2] = {big.data(), big.data()};
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    ASSERT_EQ(PMIx_Data_pack(nullptr, &buffer, two, 2, PMIX_STRING), PMIX_SUCCESS);
    Payload in(reinterpret_cast<uint8_t*>(buffer.base_ptr), reinterpret_cast<uint8_t*>(buffer.base_ptr) + buffer.bytes_used);
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    int64_t before = heap_in_use();
    {
        Reader r(in, "test message");
        r.str();
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error().rfind("test message: field 1 (string) at byte 0: ", 0), 0u) << r.error();
    }
    EXPECT_LT(heap_in_use() - before, 512 << 10) << "the string PMIx unpacked before failing leaked";
}

// The claimed length counts a NUL that ends the string; without it the text would be read past
// the end of what PMIx copied.
TEST(Reader, AStringWithoutItsNulIsRefused)
{
    Payload in = Writer().i32(3).take() + raw("abc") + Writer().u32(7).take();
    Reader r(in, "test message");
    r.str();
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "test message: field 1 (string) at byte 0: the string is not NUL-terminated");
}

TEST(Reader, AStringWithANulInsideIsRefused)
{
    Payload in = Writer().i32(4).take() + raw(std::string("a\0b\0", 4));
    Reader r(in, "test message");
    r.str();
    EXPECT_EQ(r.error(), "test message: field 1 (string) at byte 0: the string holds a NUL");
}

TEST(Reader, ANegativeLengthIsRefused)
{
    Payload in = Writer().i32(-2).take() + raw("abc");
    Reader r(in, "test message");
    r.str();
    EXPECT_EQ(r.error(), "test message: field 1 (string) at byte 0: claims a negative length (-2)");
}

TEST(Reader, AListCountBeyondWhatIsLeftIsRefusedBeforeReadingAnyEntry)
{
    Payload in = Writer().u32(1000000).str("one").take();
    Reader r(in, "test message");
    EXPECT_TRUE(r.strings().empty());
    EXPECT_EQ(r.error(), "test message: field 1 (u32) at byte 0: 1000000 strings cannot fit in the 6 byte(s) left");

    Payload four = Writer().u32(2).u32(1).u32(2).take();
    Reader fits(four, "test message");
    EXPECT_EQ(fits.count("entries", 2), 2u);
    EXPECT_TRUE(fits.ok()) << fits.error();
    Reader tight(four, "test message");
    EXPECT_EQ(tight.count("entries", 3), 0u);
    EXPECT_FALSE(tight.ok());
}

TEST(Reader, BytesLeftOverAreAnError)
{
    Payload in = Writer().u32(1).u8(9).take();
    Reader r(in, "test message");
    r.u32();
    r.expect_end();
    EXPECT_EQ(r.error(), "test message: field 1 (u32) at byte 0: 2 byte(s) left over after this last field");
    Reader whole(in, "test message");
    whole.u32();
    whole.u8();
    whole.expect_end();
    EXPECT_TRUE(whole.ok()) << whole.error();
}

// Names end up in log lines: one with a newline would forge a second line.
TEST(Reader, ANameHoldsNoControlCharacterAndHasABound)
{
    Payload in = Writer().str("node01").str("node\n02").take();
    Reader r(in, "wireup");
    EXPECT_EQ(r.name("node name"), "node01");
    EXPECT_EQ(r.name("node name"), "");
    EXPECT_EQ(r.error(), "wireup: field 2 (string) at byte 9: the node name holds a control character");
    Payload long_one = Writer().str(std::string(300, 'n')).take();
    Reader l(long_one, "wireup");
    l.name("node name");
    EXPECT_EQ(l.error(), "wireup: field 1 (string) at byte 0: the node name is 300 bytes long, more than 255");
}

TEST(Reader, FailNamesTheFieldJustRead)
{
    Payload in = Writer().u32(3).u32(99).take();
    Reader r(in, "wireup");
    r.u32();
    uint32_t rank = r.u32();
    r.fail("daemon " + std::to_string(rank) + " is beyond the DVM's 3 ranks");
    EXPECT_EQ(r.error(), "wireup: field 2 (u32) at byte 2: daemon 99 is beyond the DVM's 3 ranks");
}

}  // namespace
