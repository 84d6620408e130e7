#include "tools/prun/tool_connection.h"

#include "pmix/info_array.h"
#include "util/tcp_nodelay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace prte::tools {

InfoList::~InfoList()
{
    for (pmix_info_t& info : infos_) PMIX_INFO_DESTRUCT(&info);
}

pmix_info_t& InfoList::append()
{
    infos_.emplace_back();
    pmix_info_t& info = infos_.back();
    PMIX_INFO_CONSTRUCT(&info);
    return info;
}

void InfoList::add_string(const char* key, const std::string& value)
{
    PMIx_Info_load(&append(), key, value.c_str(), PMIX_STRING);
}

void InfoList::add_bool(const char* key, bool value)
{
    PMIx_Info_load(&append(), key, &value, PMIX_BOOL);
}

void InfoList::add_int(const char* key, int value)
{
    PMIx_Info_load(&append(), key, &value, PMIX_INT);
}

void InfoList::add_uint32(const char* key, uint32_t value)
{
    PMIx_Info_load(&append(), key, &value, PMIX_UINT32);
}

void InfoList::add_uint64(const char* key, uint64_t value)
{
    PMIx_Info_load(&append(), key, &value, PMIX_UINT64);
}

void InfoList::add_proc(const char* key, const pmix_proc_t& value)
{
    PMIx_Info_load(&append(), key, &value, PMIX_PROC);
}

namespace {

// PMIx prints multi-line banners of its own when a connection fails; our one-line error says it
// better, so the library's stderr is silenced while connecting (unless --verbose).
class QuietStderr {
  public:
    explicit QuietStderr(bool quiet)
    {
        if (!quiet) return;
        saved_ = dup(STDERR_FILENO);
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (saved_ < 0 || null_fd < 0) {
            if (null_fd >= 0) close(null_fd);
            return;
        }
        dup2(null_fd, STDERR_FILENO);
        close(null_fd);
    }
    ~QuietStderr()
    {
        if (saved_ < 0) return;
        dup2(saved_, STDERR_FILENO);
        close(saved_);
    }

  private:
    int saved_ = -1;
};

}  // namespace

namespace {

// A tool started from inside a PMIx job would otherwise take that job's identity.
void forget_inherited_identity()
{
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
}

}  // namespace

Status ToolConnection::start_unconnected(bool verbose)
{
    forget_inherited_identity();
    InfoList info;
    info.add_bool(PMIX_TOOL_DO_NOT_CONNECT, true);
    pmix_status_t rc;
    {
        QuietStderr quiet(!verbose);
        rc = PMIx_tool_init(&self_, info.data(), info.size());
    }
    if (rc != PMIX_SUCCESS) return {Errc::internal, fmt::format("cannot start the PMIx tool library: {}", status_text(rc))};
    started_ = true;
    return {};
}

Status ToolConnection::connect(const runtime::dvm_registry::Entry& dvm, bool verbose)
{
    forget_inherited_identity();
    InfoList info;
    info.add_string(PMIX_SERVER_URI, dvm.uri);
    info.add_uint32(PMIX_CONNECT_MAX_RETRIES, 2);

    pmix_status_t rc;
    {
        QuietStderr quiet(!verbose);
        if (started_) {
            info.add_bool(PMIX_PRIMARY_SERVER, true);
            rc = PMIx_tool_attach_to_server(&self_, nullptr, info.data(), info.size());
        } else {
            rc = PMIx_tool_init(&self_, info.data(), info.size());
        }
    }
    if (rc != PMIX_SUCCESS) {
        std::string which = dvm.pid > 0 ? fmt::format("the DVM (pid {}) at {}", dvm.pid, dvm.uri)
                                         : fmt::format("the DVM at {}", dvm.uri);
        disconnect();
        return {Errc::unreachable, fmt::format("cannot connect to {}: {}; is it still running?", which, status_text(rc))};
    }
    connected_ = true;
    util::set_tcp_nodelay_on_all_sockets();  // see util/tcp_nodelay.h
    return {};
}

void ToolConnection::disconnect()
{
    if (!connected_ && !started_) return;
    connected_ = started_ = false;
    PMIx_tool_finalize();
}

ToolConnection::~ToolConnection() { disconnect(); }

std::optional<int64_t> info_integer(const pmix_info_t info[], size_t ninfo, const char* key)
{
    const pmix_info_t* i = pmix::find_info(info, ninfo, key);
    return i ? pmix::value_integer(i->value) : std::nullopt;
}

std::optional<pmix_status_t> info_status(const pmix_info_t info[], size_t ninfo, const char* key)
{
    auto v = info_integer(info, ninfo, key);
    if (!v) return std::nullopt;
    return static_cast<pmix_status_t>(*v);
}

std::string info_string(const pmix_info_t info[], size_t ninfo, const char* key)
{
    const pmix_info_t* i = pmix::find_info(info, ninfo, key);
    return i ? pmix::value_string(i->value).value_or("") : std::string();
}

std::string query_string(const char* key, pmix_status_t& rc, const pmix_info_t* qualifiers, size_t nqualifiers)
{
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    pmix_status_t appended = PMIX_SUCCESS;
    PMIX_ARGV_APPEND(appended, query.keys, key);
    (void)appended;
    if (qualifiers && nqualifiers > 0) {
        PMIX_INFO_CREATE(query.qualifiers, nqualifiers);
        query.nqual = nqualifiers;
        for (size_t i = 0; i < nqualifiers; ++i) PMIX_INFO_XFER(&query.qualifiers[i], &qualifiers[i]);
    }
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    std::string text = info_string(results, nresults, key);
    if (results) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return text;
}

std::string affected_nspace(const pmix_info_t info[], size_t ninfo)
{
    if (const pmix_info_t* i = pmix::find_info(info, ninfo, PMIX_EVENT_AFFECTED_PROC)) {
        if (i->value.type == PMIX_PROC && i->value.data.proc) return i->value.data.proc->nspace;
    }
    if (const pmix_info_t* i = pmix::find_info(info, ninfo, PMIX_EVENT_AFFECTED_PROCS)) {
        const pmix_data_array_t* array = i->value.data.darray;
        if (i->value.type == PMIX_DATA_ARRAY && array && array->type == PMIX_PROC && array->size > 0) {
            return static_cast<const pmix_proc_t*>(array->array)[0].nspace;
        }
    }
    return {};
}

std::string status_text(pmix_status_t status)
{
    const char* text = PMIx_Error_string(status);
    return text ? text : fmt::format("PMIx status {}", status);
}

}  // namespace prte::tools
