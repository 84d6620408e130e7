#include "rml/buffer.h"

#include <pmix.h>

#include <cstring>

#include <fmt/format.h>

namespace prte::rml {
namespace {

// A PMIx data buffer that borrows `bytes` for one unpack and gives them back untouched. The
// fields are set by hand: PMIx_Data_load would take ownership, and PMIx_Data_unload copies what is
// left after a partial read and leaves the buffer owning (and later freeing) our bytes.
struct Borrowed {
    pmix_data_buffer_t buffer;
    Borrowed(const uint8_t* bytes, size_t size)
    {
        PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
        buffer.base_ptr = reinterpret_cast<char*>(const_cast<uint8_t*>(bytes));
        buffer.unpack_ptr = buffer.base_ptr;
        buffer.pack_ptr = buffer.base_ptr + size;
        buffer.bytes_allocated = size;
        buffer.bytes_used = size;
    }
    ~Borrowed() { PMIX_DATA_BUFFER_CONSTRUCT(&buffer); }  // forget, never free
};

}  // namespace

bool Writer::pack(const void* value, int type)
{
    if (!ok_) return false;
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    pmix_status_t rc = PMIx_Data_pack(nullptr, &buffer, const_cast<void*>(value), 1, static_cast<pmix_data_type_t>(type));
    if (rc == PMIX_SUCCESS) {
        char* bytes = nullptr;
        size_t size = 0;
        PMIX_DATA_BUFFER_UNLOAD(&buffer, bytes, size);
        out_.insert(out_.end(), reinterpret_cast<uint8_t*>(bytes), reinterpret_cast<uint8_t*>(bytes) + size);
        free(bytes);
    } else {
        ok_ = false;
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    return ok_;
}

Writer& Writer::u8(uint8_t v) { pack(&v, PMIX_UINT8); return *this; }
Writer& Writer::u32(uint32_t v) { pack(&v, PMIX_UINT32); return *this; }
Writer& Writer::i32(int32_t v) { pack(&v, PMIX_INT32); return *this; }
Writer& Writer::u64(uint64_t v) { pack(&v, PMIX_UINT64); return *this; }

Writer& Writer::str(const std::string& v)
{
    const char* s = v.c_str();
    pack(&s, PMIX_STRING);
    return *this;
}

Writer& Writer::bytes(const uint8_t* data, size_t size)
{
    pmix_byte_object_t bo;
    bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(data));
    bo.size = size;
    pack(&bo, PMIX_BYTE_OBJECT);
    return *this;
}

Writer& Writer::strings(const std::vector<std::string>& v)
{
    u32(static_cast<uint32_t>(v.size()));
    for (const auto& s : v) str(s);
    return *this;
}

Payload Writer::take() { return std::move(out_); }

Reader::Reader(const Payload& in, std::string what) : in_(in), what_(std::move(what)) {}

bool Reader::at_end() const { return offset_ >= in_.size(); }

bool Reader::unpack(void* out, int type, const char* type_name)
{
    ++field_;
    if (!ok()) return false;
    if (offset_ >= in_.size()) {
        error_ = fmt::format("{}: field {} ({}): the message ends early", what_, field_, type_name);
        return false;
    }
    Borrowed view(in_.data() + offset_, in_.size() - offset_);
    int32_t count = 1;
    pmix_status_t rc = PMIx_Data_unpack(nullptr, &view.buffer, out, &count, static_cast<pmix_data_type_t>(type));
    if (rc != PMIX_SUCCESS || count != 1) {
        error_ = fmt::format("{}: field {} ({}): {}", what_, field_, type_name, PMIx_Error_string(rc));
        return false;
    }
    // What the unpack consumed is how far its read pointer moved.
    offset_ += static_cast<size_t>(view.buffer.unpack_ptr - view.buffer.base_ptr);
    return true;
}

uint8_t Reader::u8() { uint8_t v = 0; unpack(&v, PMIX_UINT8, "u8"); return v; }
uint32_t Reader::u32() { uint32_t v = 0; unpack(&v, PMIX_UINT32, "u32"); return v; }
int32_t Reader::i32() { int32_t v = 0; unpack(&v, PMIX_INT32, "i32"); return v; }
uint64_t Reader::u64() { uint64_t v = 0; unpack(&v, PMIX_UINT64, "u64"); return v; }

std::string Reader::str()
{
    char* s = nullptr;
    if (!unpack(&s, PMIX_STRING, "string")) return {};
    std::string out = s ? s : "";
    free(s);
    return out;
}

Payload Reader::bytes()
{
    pmix_byte_object_t bo;
    bo.bytes = nullptr;
    bo.size = 0;
    if (!unpack(&bo, PMIX_BYTE_OBJECT, "bytes")) return {};
    Payload out(reinterpret_cast<uint8_t*>(bo.bytes), reinterpret_cast<uint8_t*>(bo.bytes) + bo.size);
    free(bo.bytes);
    return out;
}

std::vector<std::string> Reader::strings()
{
    uint32_t n = u32();
    std::vector<std::string> out;
    // Each string takes at least a few bytes: a count beyond what is left is corrupt, not a reason
    // to reserve gigabytes.
    if (!ok() || n > in_.size() - offset_) {
        if (ok()) error_ = fmt::format("{}: field {}: a list of {} strings cannot fit", what_, field_, n);
        return out;
    }
    for (uint32_t i = 0; i < n && ok(); ++i) out.push_back(str());
    return out;
}

}  // namespace prte::rml
