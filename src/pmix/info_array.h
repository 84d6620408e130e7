// Owning arrays of pmix_info_t and readers for PMIx values: the small pieces every file of the
// PMIx server host uses to build what it hands to PMIx and to read what PMIx hands to it.
// Public PMIx API only (DESIGN.md, "PMIx").
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace prte::pmix {

// An array of pmix_info_t that owns its values: PMIx_Info_load copies what it is given and the
// destructor releases it. An asynchronous PMIx call may use data() for as long as the array
// lives, so keep it (e.g. in a heap holder) until that call's callback has run.
class InfoArray {
  public:
    InfoArray() = default;
    ~InfoArray();
    InfoArray(InfoArray&& other) noexcept;
    InfoArray& operator=(InfoArray&& other) noexcept;
    InfoArray(const InfoArray&) = delete;
    InfoArray& operator=(const InfoArray&) = delete;

    void add(const char* key, const void* value, pmix_data_type_t type);
    void add_string(const char* key, const std::string& value);
    void add_bool(const char* key, bool value);
    void add_int(const char* key, int value);
    void add_uint16(const char* key, uint16_t value);
    void add_uint32(const char* key, uint32_t value);
    void add_size(const char* key, size_t value);
    void add_rank(const char* key, pmix_rank_t value);
    void add_status(const char* key, pmix_status_t value);
    void add_proc(const char* key, const pmix_proc_t& value);
    // A nested array (PMIX_DATA_ARRAY of PMIX_INFO), as PMIX_NODE_INFO_ARRAY wants; consumes `inner`.
    void add_info_array(const char* key, InfoArray&& inner);
    // A PMIX_DATA_ARRAY of `count` pmix_proc_t.
    void add_proc_array(const char* key, const pmix_proc_t* procs, size_t count);
    // Adopts a data array built by the caller (PMIX_DATA_ARRAY_CREATE); it is freed with the array.
    void add_data_array(const char* key, pmix_data_array_t* array);

    pmix_info_t* data() { return infos_.empty() ? nullptr : infos_.data(); }
    size_t size() const { return infos_.size(); }
    bool empty() const { return infos_.empty(); }

  private:
    pmix_info_t& append(const char* key);
    void release() noexcept;

    std::vector<pmix_info_t> infos_;
};

// Readers that accept the value types PMIx callers actually send (a boolean may come as PMIX_BOOL,
// as a key with no value, or as "true"/"false"; a number as any integer type).
std::optional<std::string> value_string(const pmix_value_t& value);
std::optional<int64_t> value_integer(const pmix_value_t& value);
std::optional<bool> value_flag(const pmix_value_t& value);
// The processes a value names: one PMIX_PROC, or a PMIX_DATA_ARRAY of them (a custom event range,
// say); empty for any other value.
std::vector<pmix_proc_t> value_procs(const pmix_value_t& value);

const pmix_info_t* find_info(const pmix_info_t info[], size_t ninfo, const char* key);
bool has_flag(const pmix_info_t info[], size_t ninfo, const char* key);  // present and true

// An info array as bytes for a daemon-to-daemon message (packed by PMIx, so any value type
// travels), leaving out entries whose key is `skip_key` (may be null); false when PMIx refuses.
bool pack_infos(const pmix_info_t info[], size_t ninfo, std::vector<uint8_t>& out, const char* skip_key = nullptr);
// The array back, with `spare` empty entries at its end for the caller to fill (ninfo counts
// them); nullptr when the bytes are malformed or claim more than `max_entries`. Free with
// PMIX_INFO_FREE(info, ninfo).
pmix_info_t* unpack_infos(const std::vector<uint8_t>& bytes, size_t& ninfo, size_t spare = 0,
                          size_t max_entries = 4096);

// "nspace:rank" ("nspace:*" for the wildcard rank), for messages.
std::string describe(const pmix_proc_t& proc);

}  // namespace prte::pmix
