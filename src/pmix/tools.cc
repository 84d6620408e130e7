// Tools (prun, pterm, pps, pquery, pevent): their connection, their names, and what they may ask
// of the DVM through job control.
#include <pmix.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "mca/odls/base/odls_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_launch.h"
#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

using Tool = HostState::Tool;

// Tools that connected, by rank in the tools' namespace (or by their own namespace when they
// brought one). PMIx does not say when a tool leaves, so only the latest kKeptTools are kept,
// for naming them in messages. Progress thread.
constexpr size_t kKeptTools = 1024;

std::string tool_key(const pmix_proc_t& proc) { return fmt::format("{}.{}", proc.nspace, proc.rank); }

std::map<std::string, Tool>& tools() { return host().tools.known; }
std::deque<std::string>& tool_order() { return host().tools.order; }

void remember_tool(const pmix_proc_t& proc, const Tool& tool)
{
    std::string key = tool_key(proc);
    if (tools().emplace(key, tool).second) tool_order().push_back(key);
    while (tool_order().size() > kKeptTools) {
        tools().erase(tool_order().front());
        tool_order().pop_front();
    }
}

bool is_tool(const pmix_proc_t& proc)
{
    return tools().count(tool_key(proc)) > 0 || proc.nspace == rt().identity().dvm_nspace + "-tools";
}

std::string program_of(const std::string& command_line)
{
    std::string first = command_line.substr(0, command_line.find(' '));
    return std::filesystem::path(first).filename().string();
}

struct ToolRequest {
    std::optional<std::string> nspace;
    std::optional<pmix_rank_t> rank;
    std::optional<int64_t> uid;
    Tool tool;
};

ToolRequest read_tool_request(const pmix_info_t info[], size_t ninfo)
{
    ToolRequest r;
    for (size_t i = 0; info && i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (PMIX_CHECK_KEY(&in, PMIX_NSPACE) || PMIX_CHECK_KEY(&in, PMIX_TOOL_NSPACE)) {
            r.nspace = value_string(in.value);
        } else if (PMIX_CHECK_KEY(&in, PMIX_RANK) || PMIX_CHECK_KEY(&in, PMIX_TOOL_RANK)) {
            if (auto n = value_integer(in.value)) r.rank = static_cast<pmix_rank_t>(*n);
        } else if (PMIX_CHECK_KEY(&in, PMIX_USERID)) {
            r.uid = value_integer(in.value);
        } else if (PMIX_CHECK_KEY(&in, PMIX_PROC_PID)) {
            r.tool.pid = static_cast<pid_t>(value_integer(in.value).value_or(0));
        } else if (PMIX_CHECK_KEY(&in, PMIX_CMD_LINE)) {
            r.tool.program = program_of(value_string(in.value).value_or(""));
        }
    }
    return r;
}

// PMIx 4.2.2 keeps about 3.5 KB for every tool that ever connected (pmix422/repairs.h); each new
// connection releases what departed ones left, so the DVM holds the records of connected tools
// only. On PMIx's thread, as the repairs require: this runs inside its tool-connection upcall.
void release_departed_tools()
{
    std::string nspace = fmt::format("{}-tools", rt().identity().dvm_nspace);
    size_t connected = 0;
    size_t released = prte_pmix422_release_departed_tools(nspace.c_str(), &connected);
    if (released > 0) {
        verbose()(5, "released the PMIx records of {} departed tool(s); {} tool(s) still connected", released, connected);
    }
}

// prte_test_answer_tools_after_hangup (tests only): said on PMIx's thread, before the answer.
void tool_hung_up(const pmix_proc_t* name, int gone)
{
    verbose()(1, "tool {} {} before its answer (prte_test_answer_tools_after_hangup)", describe(*name),
              gone ? "hung up" : "did not hang up");
}

// The answer goes through the PMIx 4.2.2 repairs, which make a failed handshake (the tool gone,
// or refused) safe; PMIx reads the name even for a refusal.
void answer_tool(pmix_status_t status, const pmix_proc_t* name, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata)
{
    if (!cbfunc) return;
    auto& held = host().tools.answered_after_hangup;
    bool after_hangup = held < rt().settings().test_answer_tools_after_hangup;
    if (after_hangup) ++held;
    if (prte_pmix422_answer_tool(status, name, cbfunc, cbdata, after_hangup ? tool_hung_up : nullptr)) return;
    pmix_proc_t placeholder;
    PMIX_LOAD_PROCID(&placeholder, "refused-tool", 0);
    cbfunc(status, name ? const_cast<pmix_proc_t*>(name) : &placeholder, cbdata);
}

}  // namespace

// A tool gets "<dvm_nspace>-tool-<n>", rank 0, unless it brought a name of its own. Only the
// DVM's owner (or root) may connect: a tool can run jobs and stop the DVM.
void tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata)
{
    release_departed_tools();
    ToolRequest request = read_tool_request(info, ninfo);
    if (verbose().enabled(10)) {
        for (size_t i = 0; info && i < ninfo; ++i) {
            verbose()(10, "tool connection info {} ({})", info[i].key, PMIx_Data_type_string(info[i].value.type));
        }
    }
    post([request, cbfunc, cbdata] {
        if (request.uid && *request.uid != static_cast<int64_t>(geteuid()) && *request.uid != 0) {
            verbose()(1, "tool {}of user {} refused: the DVM belongs to user {}",
                      request.tool.program.empty() ? "" : request.tool.program + " ", *request.uid, geteuid());
            answer_tool(PMIX_ERR_NO_PERMISSIONS, nullptr, cbfunc, cbdata);
            return;
        }
        pmix_proc_t name;
        if (request.nspace && !request.nspace->empty()) {
            PMIX_LOAD_PROCID(&name, request.nspace->c_str(), request.rank.value_or(0));
        } else {
            // All tools share one namespace, each its own rank. PMIx 4.2 keeps a namespace's
            // record (about 50 KB) until the host deregisters it, and tells the host nothing when a
            // tool leaves: one namespace per tool grew the DVM by 54 KB per prun or pps.
            std::string nspace = fmt::format("{}-tools", rt().identity().dvm_nspace);
            PMIX_LOAD_PROCID(&name, nspace.c_str(), host().tools.next_rank++);
        }
        remember_tool(name, request.tool);
        verbose()(2, "tool {}connected as {}", request.tool.program.empty() ? "" : request.tool.program + " ",
                  describe(name));
        answer_tool(PMIX_SUCCESS, &name, cbfunc, cbdata);
    });
}

std::string requestor_name(const pmix_proc_t& proc)
{
    if (auto it = tools().find(tool_key(proc)); it != tools().end()) {
        const Tool& tool = it->second;
        std::string program = tool.program.empty() ? std::string("tool ") + proc.nspace : tool.program;
        return tool.pid > 0 ? fmt::format("{} (pid {})", program, tool.pid) : program;
    }
    if (rt().jobs().find(proc.nspace)) return fmt::format("rank {} of job {}", proc.rank, proc.nspace);
    return describe(proc);
}

namespace {

struct ControlRequest {
    bool kill = false;       // PMIX_JOB_CTRL_KILL
    bool terminate = false;  // PMIX_JOB_CTRL_TERMINATE
    int signal = 0;          // PMIX_JOB_CTRL_SIGNAL
    std::string unsupported;
};

ControlRequest read_control(const pmix_info_t directives[], size_t ndirs)
{
    ControlRequest c;
    for (size_t i = 0; directives && i < ndirs; ++i) {
        const pmix_info_t& d = directives[i];
        if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_KILL)) {
            c.kill = value_flag(d.value).value_or(false);
        } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_TERMINATE)) {
            c.terminate = value_flag(d.value).value_or(false);
        } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_SIGNAL)) {
            c.signal = static_cast<int>(value_integer(d.value).value_or(0));
        } else if (PMIX_CHECK_KEY(&d, PMIX_JOB_CTRL_ID)) {
            // A label for the request; nothing to do with it.
        } else if (c.unsupported.empty()) {
            c.unsupported = d.key;
        }
    }
    return c;
}

// Applies the request to one job; PMIX_SUCCESS or why not.
pmix_status_t control_job(const runtime::JobPtr& job, const ControlRequest& c, const std::string& who)
{
    if (c.kill || c.terminate) {
        plm::base::terminate_job(job, fmt::format("job {} was {} by {}", job->nspace, c.kill ? "killed" : "terminated", who));
        return PMIX_SUCCESS;
    }
    if (!odls::base::module()) return PMIX_ERR_NOT_SUPPORTED;
    // Every node's processes, not only the master's: prun forwards a signal to the whole job.
    plm::base::signal_job_procs(job, c.signal);
    return PMIX_SUCCESS;
}

void answer(pmix_info_cbfunc_t cbfunc, void* cbdata, pmix_status_t status)
{
    if (cbfunc) cbfunc(status, nullptr, 0, cbdata, nullptr, nullptr);
}

}  // namespace

// Kill, terminate or signal jobs; terminating the DVM itself (its namespace as a target, or a tool
// naming no target) shuts the DVM down. Signals go to whole jobs; single processes are not
// targeted yet.
pmix_status_t job_control(const pmix_proc_t* requestor, const pmix_proc_t targets[], size_t ntargets,
                          const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    ControlRequest control = read_control(directives, ndirs);
    if (!control.kill && !control.terminate && control.signal == 0) {
        verbose()(1, "job control from {} refused: {} is not supported", describe(*requestor),
                  control.unsupported.empty() ? std::string("an empty request") : control.unsupported);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_proc_t from = *requestor;
    std::vector<pmix_proc_t> aimed = targets ? std::vector<pmix_proc_t>(targets, targets + ntargets)
                                             : std::vector<pmix_proc_t>{};
    post([from, aimed, control, cbfunc, cbdata]() mutable {
        const std::string who = requestor_name(from);
        const bool from_tool = is_tool(from);
        if (aimed.empty()) {
            if (from_tool) {
                pmix_proc_t dvm;
                PMIX_LOAD_PROCID(&dvm, rt().identity().dvm_nspace.c_str(), PMIX_RANK_WILDCARD);
                aimed.push_back(dvm);
            } else {
                pmix_proc_t own;
                PMIX_LOAD_PROCID(&own, from.nspace, PMIX_RANK_WILDCARD);
                aimed.push_back(own);
            }
        }
        pmix_status_t status = PMIX_SUCCESS;
        bool stop_dvm = false;
        for (const pmix_proc_t& target : aimed) {
            if (is_dvm_nspace(target.nspace)) {
                if (control.kill || control.terminate) {
                    stop_dvm = true;
                } else {
                    status = PMIX_ERR_NOT_SUPPORTED;  // signalling the daemons themselves
                }
                continue;
            }
            runtime::JobPtr job = rt().jobs().find(target.nspace);
            if (!job) {
                verbose()(1, "job control from {}: no job {}", who, target.nspace);
                status = PMIX_ERR_NOT_FOUND;
                continue;
            }
            if (target.rank != PMIX_RANK_WILDCARD) {
                verbose()(1, "job control from {} on {} refused: single processes cannot be targeted yet", who,
                          describe(target));
                status = PMIX_ERR_NOT_SUPPORTED;
                continue;
            }
            verbose()(2, "job control from {}: {} job {}", who,
                      control.kill ? "kill" : control.terminate ? "terminate" : fmt::format("signal {}", control.signal),
                      job->nspace);
            if (pmix_status_t rc = control_job(job, control, who); rc != PMIX_SUCCESS) status = rc;
        }
        // Answer first: the requester (pterm) hears the DVM accepted before it goes away.
        answer(cbfunc, cbdata, status);
        if (stop_dvm) {
            verbose()(2, "DVM termination requested by {}", who);
            rt().request_shutdown(0, "terminated by " + who);
        }
    });
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail
