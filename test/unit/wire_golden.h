// Golden encodings: the bytes of each message that crosses a socket between our own processes,
// per wire protocol version (test/unit/wire_golden.inc).
//
// A daemon of the previous release reads this one's messages only if their bytes are the same;
// the protocol version (rml::kProtocolVersion) is what tells two daemons they are not. So each
// message's encoding of one fixed example is recorded with the version it belongs to, and changes
// only with a new version: old versions' lines stay, as the record of what each one sent.
// contrib/check-wire-version.sh holds the table's lines for a version to the fingerprint recorded
// for it in src/rml/wire_versions.txt, so that a line cannot be regenerated in place.
//
// Each decoders' unit test checks its own messages, named "<owner>: <message>" (plm's, the first
// recorded, have no owner: plm_messages_test), against the one table. To record a new version
// (after raising kProtocolVersion), in the build directory each of
//   PRTE_GOLDEN_UPDATE=1 test/unit/plm_messages_test --gtest_filter='*Golden*'
//   PRTE_GOLDEN_UPDATE=1 test/unit/grpcomm_direct_test --gtest_filter='*Golden*'
//   PRTE_GOLDEN_UPDATE=1 test/unit/pmix_relay_messages_test --gtest_filter='*Golden*'
// prints its lines: append them to test/unit/wire_golden.inc, in this order.
#pragma once

#include <pmix.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "rml/types.h"

namespace wire_golden {

using prte::rml::Payload;

struct GoldenLine {
    uint32_t version;
    const char* message;
    const char* hex;
};

inline const GoldenLine kGolden[] = {
#include "wire_golden.inc"
};

inline std::string to_hex(const Payload& bytes)
{
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

inline Payload from_hex(const std::string& hex)
{
    Payload out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

// One message type: its example encoded now, and a check that given bytes decode to the example's
// fields (a message saying which field differs, or empty).
struct GoldenMessage {
    std::string name;
    Payload encoded;
    std::function<std::string(const Payload&)> decodes_to_example;
};

// "field differs: got X, want Y", or empty when equal.
template <typename T>
std::string differ(const char* field, const T& got, const T& want)
{
    if (got == want) return {};
    std::ostringstream o;
    o << field << " differs";
    if constexpr (requires(std::ostream& s) { s << got; }) o << ": got " << got << ", want " << want;
    return o.str();
}

inline std::string first_of(std::initializer_list<std::string> differences)
{
    for (const auto& d : differences) {
        if (!d.empty()) return d;
    }
    return {};
}

// The owner of a line: what its name says before ": ", or "" (plm's).
inline std::string owner_of(const std::string& message)
{
    size_t colon = message.find(": ");
    return colon == std::string::npos ? std::string() : message.substr(0, colon);
}

inline const GoldenLine* golden_line(uint32_t version, const std::string& message)
{
    for (const GoldenLine& line : kGolden) {
        if (line.version == version && message == line.message) return &line;
    }
    return nullptr;
}

inline constexpr const char* kRegenerate =
    "raise kProtocolVersion in src/rml/types.h (and record it in src/rml/wire_versions.txt), then regenerate "
    "the golden values: PRTE_GOLDEN_UPDATE=1 with --gtest_filter='*Golden*' prints the new version's lines of "
    "each decoders' test for test/unit/wire_golden.inc (test/unit/wire_golden.h)";

// Each message of `owner` encodes as recorded for this protocol version, and every line recorded
// for it belongs to a message still checked. With PRTE_GOLDEN_UPDATE set, prints the lines instead.
inline void expect_encodings_recorded(const std::string& owner, const std::vector<GoldenMessage>& messages)
{
    const uint32_t version = prte::rml::kProtocolVersion;
    if (std::getenv("PRTE_GOLDEN_UPDATE")) {
        std::printf("// wire protocol %u, PMIx %s: append the lines below to test/unit/wire_golden.inc\n", version,
                    PMIx_Get_version());
        for (const GoldenMessage& m : messages) {
            // One line each: contrib/check-wire-version.sh fingerprints a version's lines.
            std::printf("{%u, \"%s\", \"%s\"},\n", version, m.name.c_str(), to_hex(m.encoded).c_str());
        }
        GTEST_SKIP() << "PRTE_GOLDEN_UPDATE is set: printed the golden lines of wire protocol " << version
                     << " instead of checking them";
    }
    for (const GoldenMessage& m : messages) {
        EXPECT_EQ(owner_of(m.name), owner) << m.name;
        const GoldenLine* line = golden_line(version, m.name);
        if (!line) {
            ADD_FAILURE() << m.name << ": no golden encoding recorded for wire protocol " << version << ": " << kRegenerate;
            continue;
        }
        EXPECT_EQ(to_hex(m.encoded), line->hex)
            << m.name << ": its encoding is not the one recorded for wire protocol " << version
            << " (a payload changed, or PMIx " << PMIx_Get_version() << " packs differently): " << kRegenerate;
    }
    for (const GoldenLine& line : kGolden) {
        if (line.version != version || owner_of(line.message) != owner) continue;
        bool known = false;
        for (const GoldenMessage& m : messages) known = known || m.name == line.message;
        EXPECT_TRUE(known) << "wire_golden.inc records \"" << line.message << "\" for wire protocol " << version
                           << ", which no example here encodes";
    }
}

// The bytes recorded for this protocol version decode to each example, field by field.
inline void expect_recorded_bytes_decode(const std::vector<GoldenMessage>& messages)
{
    const uint32_t version = prte::rml::kProtocolVersion;
    for (const GoldenMessage& m : messages) {
        const GoldenLine* line = golden_line(version, m.name);
        if (!line) continue;  // expect_encodings_recorded says so
        std::string difference = m.decodes_to_example(from_hex(line->hex));
        EXPECT_EQ(difference, "") << m.name << ": the bytes recorded for wire protocol " << version
                                  << " no longer decode to the example: " << kRegenerate;
    }
}

// A GoldenMessage from an example, its encoder, and a decoder `Status decode(const Payload&, T&)`
// or `bool decode(const Payload&, T&, std::string& error)`, with `compare(got, want)`.
template <typename Message, typename Encode, typename Decode, typename Compare>
GoldenMessage golden(std::string name, const Message& example, Encode encode, Decode decode, Compare compare)
{
    return {name, encode(example), [example, decode, compare](const Payload& in) {
                Message got{};
                std::string error = decode(in, got);
                if (!error.empty()) return "does not decode: " + error;
                return compare(got, example);
            }};
}

// The same for a message whose own namespace declares `Payload encode(const T&)` and `Status
// decode(const Payload&, T&)`, found by argument-dependent lookup: plm's, grpcomm's and the PMIx
// host's messages all do.
template <typename Message, typename Compare>
GoldenMessage golden_by_lookup(std::string name, const Message& example, Compare compare)
{
    return golden(
        std::move(name), example, [](const Message& m) { return encode(m); },
        [](const Payload& in, Message& m) {
            auto st = decode(in, m);
            return st ? std::string() : st.message();
        },
        compare);
}

}  // namespace wire_golden
