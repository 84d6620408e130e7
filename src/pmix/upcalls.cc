// The upcalls about client processes and the small services: connect, finalize, abort, events,
// output, stdin, logging, allocation. Each runs on PMIx's thread; what touches runtime state is
// posted to the progress thread, and the PMIx callback is called when that work is done.
#include <pmix.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mca/odls/base/odls_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "runtime/runtime.h"

namespace prte::pmix::detail {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

// spec 7.4.4: REGISTERED is the process's PMIx_Init reaching its server.
void mark_registered(const pmix_proc_t& who)
{
    runtime::JobPtr job = rt().jobs().find(who.nspace);
    if (!job || !job->proc(who.rank)) {
        verbose()(1, "client {} connected but names no process of a known job", describe(who));
        return;
    }
    verbose()(5, "client {} connected", describe(who));
    rt().state().activate_proc_state(job, who.rank, runtime::ProcState::registered);
}

// Joins the acceptances of one stdin push: the tool's callback runs once, after the last.
class PushCompletion {
  public:
    PushCompletion(pmix_op_cbfunc_t cbfunc, void* cbdata) : cbfunc_(cbfunc), cbdata_(cbdata) {}
    void expect() { ++outstanding_; }
    void done(pmix_status_t status)
    {
        if (status_ == PMIX_SUCCESS) status_ = status;
        if (--outstanding_ == 0 && cbfunc_) cbfunc_(status_, cbdata_);
    }

  private:
    pmix_op_cbfunc_t cbfunc_;
    void* cbdata_;
    size_t outstanding_ = 1;  // the dispatch's own, so that acceptances given at once cannot end it early
    pmix_status_t status_ = PMIX_SUCCESS;
};

// The ranks of the job a push target names: one, or for the wildcard those that read stdin.
std::vector<runtime::Rank> stdin_ranks(const runtime::Job& job, pmix_rank_t rank)
{
    if (rank != PMIX_RANK_WILDCARD) return {rank};
    std::vector<runtime::Rank> ranks;
    for (const auto& proc : job.procs) {
        if (job.stdin_target.includes(proc->rank)) ranks.push_back(proc->rank);
    }
    return ranks;
}

void deliver_stdin(const pmix_proc_t& from, const std::vector<pmix_proc_t>& targets, const std::string& data,
                   pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    auto completion = std::make_shared<PushCompletion>(cbfunc, cbdata);
    const bool eof = data.empty();
    odls::Module* odls = odls::base::module();
    for (const pmix_proc_t& target : targets) {
        runtime::JobPtr job = rt().jobs().find(target.nspace);
        if (!job || !odls || (target.rank != PMIX_RANK_WILDCARD && !job->proc(target.rank))) {
            verbose()(1, "stdin from {} for {} refused: {}", requestor_name(from), describe(target),
                      odls ? "no such process" : "no launcher");
            completion->expect();
            completion->done(odls ? PMIX_ERR_NOT_FOUND : PMIX_ERR_NOT_SUPPORTED);
            continue;
        }
        verbose()(5, "stdin from {} for {}: {}", requestor_name(from), describe(target),
                  eof ? std::string("end of input") : fmt::format("{} bytes", data.size()));
        for (runtime::Rank rank : stdin_ranks(*job, target.rank)) {
            completion->expect();
            auto done = [completion](const Status& st) { completion->done(to_pmix_status(st)); };
            if (forward_stdin(job, rank, data, eof, done)) continue;
            odls->write_stdin(job, rank, data, eof, done);
        }
    }
    completion->done(PMIX_SUCCESS);
}

}  // namespace

pmix_status_t client_connected(const pmix_proc_t* proc, void*, pmix_info_t[], size_t, pmix_op_cbfunc_t cbfunc,
                               void* cbdata)
{
    pmix_proc_t who = *proc;
    post([who, cbfunc, cbdata] {
        mark_registered(who);
        if (cbfunc) cbfunc(PMIX_SUCCESS, cbdata);
    });
    return PMIX_SUCCESS;
}

pmix_status_t client_connected_v1(const pmix_proc_t* proc, void* server_object, pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    return client_connected(proc, server_object, nullptr, 0, cbfunc, cbdata);
}

// Nothing to record: the process's exit is what ends it (spec 7.4.4).
pmix_status_t client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*)
{
    verbose()(5, "client {} finalized", describe(*proc));
    return PMIX_OPERATION_SUCCEEDED;
}

// PMIx_Abort: the process's status becomes its exit code and the job is torn down with a message
// naming it (errmgr keeps a message already set). Targets other than the caller's own job are
// not honoured: aborting another job is job control, not abort.
pmix_status_t client_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[], size_t,
                           pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    pmix_proc_t who = *proc;
    std::string message = msg ? msg : "";
    post([who, status, message, cbfunc, cbdata] {
        runtime::JobPtr job = rt().jobs().find(who.nspace);
        runtime::Proc* p = job ? job->proc(who.rank) : nullptr;
        if (!p) {
            verbose()(1, "PMIx_Abort from {}, which is no process of a known job", describe(who));
            if (cbfunc) cbfunc(PMIX_ERR_NOT_FOUND, cbdata);
            return;
        }
        verbose()(2, "{} called PMIx_Abort with status {}: {}", describe(who), status, message);
        p->exit_code = status;
        if (!job->aborting && job->abort_message.empty()) {
            std::string node = p->node ? p->node->name : std::string("?");
            // Open MPI 4.1 aborts with "N/A" and says why in the PMIx_Log just before.
            std::string why = message == "N/A" ? std::string() : message;
            if (why.empty()) why = logged_abort_reason(*p);
            job->abort_message = fmt::format("rank {} on node {} called PMIx_Abort with status {}{}{}", who.rank, node,
                                             status, why.empty() ? "" : ": ", why);
        }
        rt().state().activate_proc_state(job, who.rank, runtime::ProcState::called_abort);
        if (cbfunc) cbfunc(PMIX_SUCCESS, cbdata);
    });
    return PMIX_SUCCESS;
}

// PMIx has already delivered a client's event to the local processes and tools that registered
// for it before asking us; what is left for the host is relaying it to the other daemons' servers
// (event_relay.cc). Delivering it again here would deliver it twice.
pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range, pmix_info_t info[],
                           size_t ninfo, pmix_op_cbfunc_t, void*)
{
    bool relayed = relay_event(code, source, range, info, ninfo);
    if (source) observe_group_event(code, *source, info, ninfo);
    verbose()(5, "event {} from {} (range {}) delivered locally by PMIx{}", PMIx_Error_string(code),
              source ? describe(*source) : std::string("?"), PMIx_Data_range_string(range),
              relayed ? ", relayed to the other daemons" : "");
    return PMIX_OPERATION_SUCCEEDED;
}

// The DVM raises the events it knows of (job end) whether or not anyone registered; PMIx
// routes them to the registrations it keeps itself.
pmix_status_t register_events(pmix_status_t*, size_t, const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*)
{
    return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t deregister_events(pmix_status_t*, size_t, pmix_op_cbfunc_t, void*) { return PMIX_OPERATION_SUCCEEDED; }

// The PMIx library keeps the tool's output request itself and sends it what deliver_output hands
// over; output held for this tool (output_hold.cc) is let go now. A deregistration (PMIX_IOF_STOP)
// comes here too. Either way PMIx 4.2.2 forgets to release its request: pmix422_repairs does.
pmix_status_t iof_pull(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                       pmix_iof_channel_t channels, pmix_op_cbfunc_t, void* cbdata)
{
    bool stop = false;
    for (size_t i = 0; directives && i < ndirs; ++i) {
        if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_STOP)) stop = PMIX_INFO_TRUE(&directives[i]);
    }
    verbose()(5, "output {} for {} process group(s), channels {:#x}", stop ? "deregistration" : "pull", nprocs,
              static_cast<unsigned>(channels));
    if (!stop) on_pull_request(procs, nprocs);
    prte_pmix422_after_iof_request(cbdata, stop ? 1 : 0);
    return PMIX_OPERATION_SUCCEEDED;
}

// A tool's stdin (PMIx_IOF_push) for processes of a job: each target gets a copy, the wildcard
// rank meaning every process of the job that reads stdin (job.stdin_target); an empty push is the
// end of input. The tool hears once, when every copy has been accepted (odls holds acceptance back
// while a process is far behind in reading: that is the tool's flow control), with the first
// refusal if there was one.
pmix_status_t push_stdin(const pmix_proc_t* source, const pmix_proc_t targets[], size_t ntargets, const pmix_info_t[],
                         size_t, const pmix_byte_object_t* bo, pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    if (!targets || ntargets == 0) return PMIX_ERR_BAD_PARAM;
    auto data = std::make_shared<const std::string>(bo && bo->bytes && bo->size > 0 ? std::string(bo->bytes, bo->size)
                                                                                     : std::string());
    std::vector<pmix_proc_t> aimed(targets, targets + ntargets);
    pmix_proc_t from{};
    if (source) from = *source;
    post([from, aimed = std::move(aimed), data, cbfunc, cbdata] { deliver_stdin(from, aimed, *data, cbfunc, cbdata); });
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail
