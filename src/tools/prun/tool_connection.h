// What prun and pterm share: connecting to the DVM as a PMIx tool, PMIx info arrays with RAII,
// and reading values out of event info.
//
// A tool connects by the DVM's URI only (PMIX_SERVER_URI) and never declares itself a launcher
// (PMIX_LAUNCHER), so PMIx opens no listener and writes no rendezvous file for it: a running prun
// cannot make other tools ("pps --pid <prte pid>") see "multiple possible servers". (Checked with
// PMIx 4.2.2 under strace: a prun run creates no file and binds no socket.)
#pragma once

#include <pmix_tool.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/dvm_registry.h"
#include "util/status.h"

namespace prte::tools {

// An array of pmix_info_t that owns its values.
class InfoList {
  public:
    InfoList() = default;
    ~InfoList();
    InfoList(const InfoList&) = delete;
    InfoList& operator=(const InfoList&) = delete;

    void add_string(const char* key, const std::string& value);
    void add_bool(const char* key, bool value);
    void add_int(const char* key, int value);
    void add_uint32(const char* key, uint32_t value);
    void add_uint64(const char* key, uint64_t value);
    void add_proc(const char* key, const pmix_proc_t& value);

    pmix_info_t* data() { return infos_.empty() ? nullptr : infos_.data(); }
    size_t size() const { return infos_.size(); }

  private:
    pmix_info_t& append();
    std::vector<pmix_info_t> infos_;
};

// The PMIx tool library, connected to one DVM; finalized on destruction.
class ToolConnection {
  public:
    ToolConnection() = default;
    ~ToolConnection();
    ToolConnection(const ToolConnection&) = delete;
    ToolConnection& operator=(const ToolConnection&) = delete;

    // Starts the PMIx tool library without a server, so that its set-up (about 1 ms: PMIx's own
    // frameworks and plugins) overlaps the DVM's start when prterun starts both together;
    // connect() then attaches to the DVM. Optional: connect() alone does both.
    Status start_unconnected(bool verbose);
    // Connects to `dvm`. The error says which DVM could not be reached and what to do.
    Status connect(const runtime::dvm_registry::Entry& dvm, bool verbose);
    void disconnect();

    bool connected() const { return connected_; }
    const pmix_proc_t& self() const { return self_; }

  private:
    bool started_ = false;  // by start_unconnected(): connect() attaches rather than initialises
    bool connected_ = false;
    pmix_proc_t self_{};
};

// Values from an event's info array (read as pmix/info_array.h reads them); nullopt/empty when
// absent or of an unexpected type. Flags: prte::pmix::has_flag.
std::optional<int64_t> info_integer(const pmix_info_t info[], size_t ninfo, const char* key);
std::optional<pmix_status_t> info_status(const pmix_info_t info[], size_t ninfo, const char* key);
std::string info_string(const pmix_info_t info[], size_t ninfo, const char* key);
// The namespace of PMIX_EVENT_AFFECTED_PROC, or of the first of PMIX_EVENT_AFFECTED_PROCS.
std::string affected_nspace(const pmix_info_t info[], size_t ninfo);

// Asks the DVM one query key, with `qualifier` when given (copied), and returns the string
// answered for it: empty when none. `rc` is PMIx_Query_info's status.
std::string query_string(const char* key, pmix_status_t& rc, const pmix_info_t* qualifiers = nullptr, size_t nqualifiers = 1);

// "PMIX_ERR_..." text for a status, for messages.
std::string status_text(pmix_status_t status);

}  // namespace prte::tools
