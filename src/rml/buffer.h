// The wire format of daemon-to-daemon messages: values packed with PMIx's data buffer API
// (PMIx_Data_pack / PMIx_Data_unpack, DESIGN.md "Wire format"), behind a small writer and reader.
//
// Every read is checked: a reader that hits a short, corrupt or mistyped buffer stays failed and
// says where (`error()`), so a handler can drop the whole message with one check at its end instead
// of trusting a half-read value. The bytes come from other daemons, so nothing they claim is
// believed before it is checked against what is actually there: a string or byte object's length
// is compared with the bytes left before PMIx sees it (PMIx 4.2 allocates whatever length a
// string claims before reading it), and a list's count before anything is read for it. PMIx must
// be initialised in the process (every daemon runs a PMIx server before it sends or receives
// anything).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rml/types.h"

namespace prte::rml {

class Writer {
  public:
    Writer& u8(uint8_t v);
    Writer& u32(uint32_t v);
    Writer& i32(int32_t v);
    Writer& u64(uint64_t v);
    Writer& str(const std::string& v);
    Writer& bytes(const uint8_t* data, size_t size);
    Writer& bytes(const Payload& v) { return bytes(v.data(), v.size()); }
    Writer& strings(const std::vector<std::string>& v);

    // False when PMIx refused a value (out of memory, PMIx not initialised); the payload is then
    // incomplete and must not be sent.
    bool ok() const { return ok_; }
    Payload take();

  private:
    bool pack(const void* value, int type);
    Payload out_;
    bool ok_ = true;
};

class Reader {
  public:
    explicit Reader(const Payload& in, std::string what = "message");

    uint8_t u8();
    uint32_t u32();
    int32_t i32();
    uint64_t u64();
    // A string holds no NUL inside: the sender packed a C string.
    std::string str();
    Payload bytes();
    std::vector<std::string> strings();
    // A string that names something (a node, a namespace, a URI): no control characters, so that
    // it can be printed in a log line as it is, and at most `max_size` bytes.
    std::string name(const char* what, size_t max_size = 255);
    // The count of a list that follows: a u32 that fails the reader when even `min_bytes_each`
    // bytes per entry would not fit in what is left (every packed value takes at least one), so
    // a corrupt count never sizes anything.
    uint32_t count(const char* what, size_t min_bytes_each = 1);

    // Fails the reader (if it has not failed already) with `why`, naming the message and the field
    // just read: decoders report values out of range the same way as bytes that do not parse.
    void fail(const std::string& why);

    bool ok() const { return error_.empty(); }
    // What went wrong first, on one line naming the message, the field and where it starts:
    // "launch message: field 3 (string) at byte 12: ...".
    const std::string& error() const { return error_; }
    // Bytes not read yet; a well-formed message leaves none.
    bool at_end() const;
    size_t remaining() const { return in_.size() - offset_; }
    // Fails the reader when bytes are left over after the last field (a message that carries more
    // than its decoder knows is corrupt or from another version).
    void expect_end();

  private:
    static bool layout_known();
    bool begin_field(const char* type_name);
    bool begin_sized_field(const char* type_name, int length_type, uint64_t& length, size_t& header);
    bool peek_length(int length_type, uint64_t& length, size_t& header);
    bool unpack(void* out, int type);
    void set_error(const std::string& why);
    const Payload& in_;
    std::string what_;
    size_t offset_ = 0;
    size_t field_start_ = 0;
    const char* field_type_ = "";
    int field_ = 0;
    std::string error_;
};

}  // namespace prte::rml
