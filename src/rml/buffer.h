// The wire format of daemon-to-daemon messages: values packed with PMIx's data buffer API
// (PMIx_Data_pack / PMIx_Data_unpack, DESIGN.md "Wire format"), behind a small writer and reader.
//
// Every read is checked: a reader that hits a short, corrupt or mistyped buffer stays failed and
// says where (`error()`), so a handler can drop the whole message with one check at its end instead
// of trusting a half-read value. PMIx must be initialised in the process (every daemon runs a PMIx
// server before it sends or receives anything).
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
    std::string str();
    Payload bytes();
    std::vector<std::string> strings();

    bool ok() const { return error_.empty(); }
    // What went wrong first, naming the message and the field: "launch message: field 3 (string): ...".
    const std::string& error() const { return error_; }
    // Bytes not read yet; a well-formed message leaves none.
    bool at_end() const;

  private:
    bool unpack(void* out, int type, const char* type_name);
    const Payload& in_;
    std::string what_;
    size_t offset_ = 0;
    int field_ = 0;
    std::string error_;
};

}  // namespace prte::rml
