#include "rml/buffer.h"

#include <pmix.h>

#include <algorithm>
#include <atomic>
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
    // What reads have consumed: how far the read pointer moved.
    size_t consumed() const { return static_cast<size_t>(buffer.unpack_ptr - buffer.base_ptr); }
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

void Reader::set_error(const std::string& why)
{
    if (!ok()) return;
    error_ = fmt::format("{}: field {} ({}) at byte {}: {}", what_, field_, field_type_, field_start_, why);
}

void Reader::fail(const std::string& why) { set_error(why); }

void Reader::expect_end()
{
    if (ok() && !at_end()) set_error(fmt::format("{} byte(s) left over after this last field", remaining()));
}

bool Reader::begin_field(const char* type_name)
{
    if (!ok()) return false;
    ++field_;
    field_start_ = offset_;
    field_type_ = type_name;
    if (at_end()) {
        set_error("the message ends early");
        return false;
    }
    return true;
}

// One value of `type` at the read position; on failure `out` may still hold what PMIx allocated
// before it failed (the caller frees it).
bool Reader::unpack(void* out, int type)
{
    Borrowed view(in_.data() + offset_, remaining());
    int32_t count = 1;
    pmix_status_t rc = PMIx_Data_unpack(nullptr, &view.buffer, out, &count, static_cast<pmix_data_type_t>(type));
    if (rc != PMIX_SUCCESS || count != 1) {
        set_error(rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : fmt::format("{} values where one belongs", count));
        return false;
    }
    // What the unpack consumed is how far its read pointer moved.
    offset_ += view.consumed();
    return true;
}

// The length a string or byte object at the read position claims, and the bytes its header (the
// value count and the length) takes. PMIx packs both as a count, a length (an int32 for a string, a
// size_t for a byte object) and the bytes, so unpacking the same position as the length's own
// type makes PMIx decode the header for us without allocating anything.
bool Reader::peek_length(int length_type, uint64_t& length, size_t& header)
{
    Borrowed view(in_.data() + offset_, remaining());
    int32_t count = 1;
    pmix_status_t rc;
    if (length_type == PMIX_INT32) {
        int32_t claimed = 0;
        rc = PMIx_Data_unpack(nullptr, &view.buffer, &claimed, &count, PMIX_INT32);
        if (rc == PMIX_SUCCESS && count == 1 && claimed < 0) {
            set_error(fmt::format("claims a negative length ({})", claimed));
            return false;
        }
        length = static_cast<uint64_t>(claimed);
    } else {
        size_t claimed = 0;
        rc = PMIx_Data_unpack(nullptr, &view.buffer, &claimed, &count, PMIX_SIZE);
        length = claimed;
    }
    if (rc != PMIX_SUCCESS || count != 1) {
        set_error(rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : fmt::format("{} values where one belongs", count));
        return false;
    }
    header = view.consumed();
    if (length > remaining() - header) {
        set_error(fmt::format("claims {} bytes but only {} are left", length, remaining() - header));
        return false;
    }
    return true;
}

// Strings and byte objects are checked before PMIx reads them; that check relies on the layout
// peek_length() describes, so the layout is confirmed once with a value of known length (a PMIx
// built to describe every value in its buffers would lay them out otherwise). Only a success is
// remembered: a check made before PMIx was initialised fails and is made again.
bool Reader::layout_known()
{
    static std::atomic<bool> known{false};
    if (known) return true;
    known = [] {
        Writer w;
        w.str("ab").bytes(reinterpret_cast<const uint8_t*>("xyz"), 3);
        Payload sample = w.take();
        Reader r(sample, "layout check");
        uint64_t length = 0;
        size_t header = 0;
        if (!w.ok() || !r.begin_field("string") || !r.peek_length(PMIX_INT32, length, header) || length != 3) return false;
        r.offset_ += header + length;
        if (!r.begin_field("bytes") || !r.peek_length(PMIX_SIZE, length, header) || length != 3) return false;
        return r.offset_ + header + length == sample.size();
    }();
    return known;
}

bool Reader::begin_sized_field(const char* type_name, int length_type, uint64_t& length, size_t& header)
{
    if (!begin_field(type_name)) return false;
    if (!layout_known()) {
        set_error("this PMIx lays out packed values in a way prte cannot check (a debug build of PMIx?)");
        return false;
    }
    return peek_length(length_type, length, header);
}

uint8_t Reader::u8()
{
    uint8_t v = 0;
    return begin_field("u8") && unpack(&v, PMIX_UINT8) ? v : 0;
}

uint32_t Reader::u32()
{
    uint32_t v = 0;
    return begin_field("u32") && unpack(&v, PMIX_UINT32) ? v : 0;
}

int32_t Reader::i32()
{
    int32_t v = 0;
    return begin_field("i32") && unpack(&v, PMIX_INT32) ? v : 0;
}

uint64_t Reader::u64()
{
    uint64_t v = 0;
    return begin_field("u64") && unpack(&v, PMIX_UINT64) ? v : 0;
}

std::string Reader::str()
{
    uint64_t length = 0;
    size_t header = 0;
    if (!begin_sized_field("string", PMIX_INT32, length, header)) return {};
    // A packed C string: its claimed length counts the NUL that ends it, and nothing before that
    // may be a NUL (a name cut short there would be another name).
    if (length > 0) {
        const uint8_t* text = in_.data() + offset_ + header;
        if (text[length - 1] != 0) {
            set_error("the string is not NUL-terminated");
            return {};
        }
        if (std::memchr(text, 0, length - 1) != nullptr) {
            set_error("the string holds a NUL");
            return {};
        }
    }
    char* s = nullptr;
    bool read = unpack(&s, PMIX_STRING);
    std::string out = read && s ? std::string(s, length - 1) : std::string();
    free(s);  // also what a failed unpack allocated
    return out;
}

Payload Reader::bytes()
{
    uint64_t length = 0;
    size_t header = 0;
    if (!begin_sized_field("bytes", PMIX_SIZE, length, header)) return {};
    pmix_byte_object_t bo;
    bo.bytes = nullptr;
    bo.size = 0;
    bool read = unpack(&bo, PMIX_BYTE_OBJECT);
    Payload out;
    if (read && bo.bytes) out.assign(reinterpret_cast<uint8_t*>(bo.bytes), reinterpret_cast<uint8_t*>(bo.bytes) + bo.size);
    free(bo.bytes);  // also what a failed unpack allocated
    return out;
}

std::string Reader::name(const char* what, size_t max_size)
{
    std::string s = str();
    if (!ok()) return {};
    if (s.size() > max_size) {
        set_error(fmt::format("the {} is {} bytes long, more than {}", what, s.size(), max_size));
    } else if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
        set_error(fmt::format("the {} holds a control character", what));
    }
    return ok() ? s : std::string();
}

uint32_t Reader::count(const char* what, size_t min_bytes_each)
{
    uint32_t n = u32();
    if (ok() && n > remaining() / std::max<size_t>(min_bytes_each, 1)) {
        set_error(fmt::format("{} {} cannot fit in the {} byte(s) left", n, what, remaining()));
        return 0;
    }
    return ok() ? n : 0;
}

std::vector<std::string> Reader::strings()
{
    uint32_t n = count("strings");
    std::vector<std::string> out;
    for (uint32_t i = 0; i < n && ok(); ++i) out.push_back(str());
    if (!ok()) out.clear();
    return out;
}

}  // namespace prte::rml
