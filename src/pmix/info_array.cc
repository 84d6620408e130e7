#include "pmix/info_array.h"

#include <pmix.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

namespace prte::pmix {

InfoArray::~InfoArray() { release(); }

InfoArray::InfoArray(InfoArray&& other) noexcept : infos_(std::move(other.infos_)) { other.infos_.clear(); }

InfoArray& InfoArray::operator=(InfoArray&& other) noexcept
{
    if (this != &other) {
        release();
        infos_ = std::move(other.infos_);
        other.infos_.clear();
    }
    return *this;
}

void InfoArray::release() noexcept
{
    for (pmix_info_t& info : infos_) PMIX_INFO_DESTRUCT(&info);
    infos_.clear();
}

pmix_info_t& InfoArray::append(const char* key)
{
    if (!infos_.empty()) infos_.back().flags &= ~PMIX_INFO_ARRAY_END;
    infos_.emplace_back();
    pmix_info_t& info = infos_.back();
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, key);
    // Some PMIx code walks an array to its end marker, as arrays made by PMIX_INFO_CREATE have.
    PMIX_INFO_SET_END(&info);
    return info;
}

void InfoArray::add(const char* key, const void* value, pmix_data_type_t type)
{
    pmix_info_t& info = append(key);
    PMIx_Value_load(&info.value, value, type);
}

void InfoArray::add_string(const char* key, const std::string& value) { add(key, value.c_str(), PMIX_STRING); }
void InfoArray::add_bool(const char* key, bool value) { add(key, &value, PMIX_BOOL); }
void InfoArray::add_int(const char* key, int value) { add(key, &value, PMIX_INT); }
void InfoArray::add_uint16(const char* key, uint16_t value) { add(key, &value, PMIX_UINT16); }
void InfoArray::add_uint32(const char* key, uint32_t value) { add(key, &value, PMIX_UINT32); }
void InfoArray::add_size(const char* key, size_t value) { add(key, &value, PMIX_SIZE); }
void InfoArray::add_rank(const char* key, pmix_rank_t value) { add(key, &value, PMIX_PROC_RANK); }
void InfoArray::add_status(const char* key, pmix_status_t value) { add(key, &value, PMIX_STATUS); }
void InfoArray::add_proc(const char* key, const pmix_proc_t& value) { add(key, &value, PMIX_PROC); }

void InfoArray::add_data_array(const char* key, pmix_data_array_t* array)
{
    pmix_info_t& info = append(key);
    info.value.type = PMIX_DATA_ARRAY;
    info.value.data.darray = array;
}

void InfoArray::add_info_array(const char* key, InfoArray&& inner)
{
    pmix_data_array_t* array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, inner.size(), PMIX_INFO);
    if (!inner.empty()) {
        // The values move bit for bit into the PMIx-allocated array, which owns them from now on.
        std::memcpy(array->array, inner.infos_.data(), inner.size() * sizeof(pmix_info_t));
        inner.infos_.clear();
    }
    add_data_array(key, array);
}

void InfoArray::add_proc_array(const char* key, const pmix_proc_t* procs, size_t count)
{
    pmix_data_array_t* array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, count, PMIX_PROC);
    if (count > 0) std::memcpy(array->array, procs, count * sizeof(pmix_proc_t));
    add_data_array(key, array);
}

std::optional<std::string> value_string(const pmix_value_t& value)
{
    if (value.type == PMIX_STRING && value.data.string) return std::string(value.data.string);
    return std::nullopt;
}

std::vector<pmix_proc_t> value_procs(const pmix_value_t& value)
{
    if (value.type == PMIX_PROC && value.data.proc) return {*value.data.proc};
    if (value.type == PMIX_DATA_ARRAY && value.data.darray && value.data.darray->type == PMIX_PROC) {
        const auto* procs = static_cast<const pmix_proc_t*>(value.data.darray->array);
        return {procs, procs + value.data.darray->size};
    }
    return {};
}

std::optional<int64_t> value_integer(const pmix_value_t& v)
{
    switch (v.type) {
    case PMIX_INT: return v.data.integer;
    case PMIX_INT8: return v.data.int8;
    case PMIX_INT16: return v.data.int16;
    case PMIX_INT32: return v.data.int32;
    case PMIX_INT64: return v.data.int64;
    case PMIX_UINT: return v.data.uint;
    case PMIX_UINT8: return v.data.uint8;
    case PMIX_UINT16: return v.data.uint16;
    case PMIX_UINT32: return v.data.uint32;
    case PMIX_UINT64: return static_cast<int64_t>(v.data.uint64);
    case PMIX_SIZE: return static_cast<int64_t>(v.data.size);
    case PMIX_PID: return v.data.pid;
    case PMIX_STATUS: return v.data.status;
    case PMIX_PROC_RANK: return v.data.rank;
    case PMIX_STRING: {
        if (!v.data.string || !*v.data.string) return std::nullopt;
        char* end = nullptr;
        long long n = std::strtoll(v.data.string, &end, 10);
        if (*end != '\0') return std::nullopt;
        return n;
    }
    default: return std::nullopt;
    }
}

std::optional<bool> value_flag(const pmix_value_t& value)
{
    if (value.type == PMIX_BOOL) return value.data.flag;
    // PMIx convention: a key given without a value means "true".
    if (value.type == PMIX_UNDEF) return true;
    if (value.type == PMIX_STRING && value.data.string) {
        std::string text = value.data.string;
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
        if (text == "true" || text == "t" || text == "yes" || text == "y" || text == "1") return true;
        if (text == "false" || text == "f" || text == "no" || text == "n" || text == "0") return false;
        return std::nullopt;
    }
    if (auto n = value_integer(value)) return *n != 0;
    return std::nullopt;
}

const pmix_info_t* find_info(const pmix_info_t info[], size_t ninfo, const char* key)
{
    for (size_t i = 0; info && i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], key)) return &info[i];
    }
    return nullptr;
}

bool has_flag(const pmix_info_t info[], size_t ninfo, const char* key)
{
    const pmix_info_t* found = find_info(info, ninfo, key);
    return found && value_flag(found->value).value_or(false);
}

std::string describe(const pmix_proc_t& proc)
{
    if (proc.rank == PMIX_RANK_WILDCARD) return fmt::format("{}:*", proc.nspace);
    return fmt::format("{}:{}", proc.nspace, proc.rank);
}

bool pack_infos(const pmix_info_t info[], size_t ninfo, std::vector<uint8_t>& out, const char* skip_key)
{
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    auto skipped = [&](size_t i) { return skip_key && PMIX_CHECK_KEY(&info[i], skip_key); };
    size_t kept = 0;
    for (size_t i = 0; i < ninfo; ++i) kept += skipped(i) ? 0 : 1;
    bool ok = PMIx_Data_pack(nullptr, &buffer, &kept, 1, PMIX_SIZE) == PMIX_SUCCESS;
    for (size_t i = 0; ok && i < ninfo; ++i) {
        if (skipped(i)) continue;
        ok = PMIx_Data_pack(nullptr, &buffer, const_cast<pmix_info_t*>(&info[i]), 1, PMIX_INFO) == PMIX_SUCCESS;
    }
    if (ok) {
        pmix_byte_object_t bo;
        PMIx_Data_unload(&buffer, &bo);
        out.assign(reinterpret_cast<uint8_t*>(bo.bytes), reinterpret_cast<uint8_t*>(bo.bytes) + bo.size);
        PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    return ok;
}

pmix_info_t* unpack_infos(const std::vector<uint8_t>& bytes, size_t& ninfo, size_t spare, size_t max_entries)
{
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    pmix_byte_object_t bo;
    bo.bytes = static_cast<char*>(malloc(bytes.empty() ? 1 : bytes.size()));
    bo.size = bytes.size();
    if (!bytes.empty()) std::memcpy(bo.bytes, bytes.data(), bytes.size());
    PMIx_Data_load(&buffer, &bo);  // the buffer takes the bytes
    size_t count = 0;
    int32_t n = 1;
    pmix_info_t* info = nullptr;
    if (PMIx_Data_unpack(nullptr, &buffer, &count, &n, PMIX_SIZE) == PMIX_SUCCESS && count <= max_entries) {
        PMIX_INFO_CREATE(info, count + spare);
        // One at a time, as pack_infos packed them: each pack carries its own count, and a single
        // unpack of `count` entries reads only the first and leaves the rest empty.
        for (size_t i = 0; info && i < count; ++i) {
            n = 1;
            if (PMIx_Data_unpack(nullptr, &buffer, &info[i], &n, PMIX_INFO) != PMIX_SUCCESS || n != 1) {
                PMIX_INFO_FREE(info, count + spare);
                info = nullptr;
            }
        }
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    ninfo = info ? count + spare : 0;
    return info;
}

}  // namespace prte::pmix
