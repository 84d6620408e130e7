// PMIx_Log: what processes and tools ask the DVM to log. Open MPI 4.1 says why a rank calls
// MPI_Abort this way (a byte object under pmix.log.msg: "MPI_ABORT was invoked on rank 1 in
// communicator MPI_COMM_WORLD with errorcode 3. ..."), then calls PMIx_Abort with "N/A" for a
// message: mpirun shows that text, and so do we, and the abort's line quotes it (upcalls.cc).
#include <pmix.h>

#include <optional>
#include <string>
#include <vector>

#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {
namespace {

bool is_text(unsigned char c) { return c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f); }

// The text in a byte object. Plain text is taken whole (without trailing NULs); Open MPI 4.1's
// pmix.log.msg is a packed buffer - the help file's name, the topic, then the formatted message
// - so from anything else the longest run of text is taken, which is the message.
std::string text_in(const char* bytes, size_t size)
{
    while (size > 0 && bytes[size - 1] == '\0') --size;
    size_t best_start = 0, best_size = 0;
    for (size_t i = 0; i < size;) {
        size_t j = i;
        while (j < size && is_text(static_cast<unsigned char>(bytes[j]))) ++j;
        if (j - i > best_size) {
            best_start = i;
            best_size = j - i;
        }
        i = j + 1;
    }
    return std::string(bytes + best_start, best_size);
}

// The text of a log entry: a string, or a byte object holding text.
std::optional<std::string> log_text(const pmix_value_t& value)
{
    if (value.type == PMIX_BYTE_OBJECT) {
        return value.data.bo.bytes ? text_in(value.data.bo.bytes, value.data.bo.size) : std::string();
    }
    return value_string(value);
}

// Progress thread: the DVM's log, one line per line of text, and the stderr of the prun that
// started the writer's job tree.
void deliver_log(const pmix_proc_t& source, const std::string& text)
{
    std::string from = describe(source);
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) verbose()(0, "log from {}: {}", from, text.substr(start, end - start));
        start = end + 1;
    }
    const runtime::JobTable& jobs = runtime::Runtime::instance().jobs();
    runtime::JobPtr job = jobs.find(source.nspace);
    runtime::Proc* proc = job ? job->proc(source.rank) : nullptr;
    if (!proc || text.empty()) return;
    proc->last_logged = text;
    std::string line = text.back() == '\n' ? text : text + "\n";
    deliver_output(*job, PMIX_RANK_UNDEF, PMIX_FWD_STDERR_CHANNEL, line.data(), line.size());  // to its tree's prun
}

}  // namespace

std::string logged_abort_reason(const runtime::Proc& proc)
{
    // The first line that says something: Open MPI's text starts with a rule of dashes.
    size_t start = 0;
    const std::string& text = proc.last_logged;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (line.find_first_not_of("- \t") != std::string::npos) return line;
        start = end + 1;
    }
    return {};
}

// PMIx_Log from a client or tool. Its text entries (strings, and byte objects such as the
// pmix.log.msg in which Open MPI 4.1 sends "MPI_ABORT was invoked on rank ...") go to the DVM's
// log, one line each, and, from a process of a job, to the stderr of the prun that started its
// job tree, as mpirun prints them. Entries of other types are not printed (verbose 5 says so).
void log_request(const pmix_proc_t* client, const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
                 size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    pmix_proc_t source{};
    if (client) source = *client;
    if (const pmix_info_t* src = find_info(directives, ndirs, PMIX_LOG_SOURCE);
        src && src->value.type == PMIX_PROC && src->value.data.proc) {
        source = *src->value.data.proc;
    }
    std::vector<std::string> texts;
    for (size_t i = 0; i < ndata; ++i) {
        if (std::optional<std::string> text = log_text(data[i].value)) {
            texts.push_back(std::move(*text));
        } else {
            verbose()(5, "log from {}: entry {} ({}) is not text: not printed", describe(source), data[i].key,
                      PMIx_Data_type_string(data[i].value.type));
        }
    }
    pmix_status_t status = !texts.empty() || ndata == 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
    // Never called back from inside the upcall: PMIx 4.2 may still use the request after the
    // upcall returns, and the callback releases it.
    post([source, texts = std::move(texts), cbfunc, cbdata, status] {
        for (const std::string& text : texts) deliver_log(source, text);
        if (cbfunc) cbfunc(status, cbdata);
    });
}

}  // namespace prte::pmix::detail
