// What the DVM tells PMIx about a job as it runs: its processes' output (to the tools that asked
// for it) and its end (to whoever spawned it). Progress thread.
#include <pmix.h>
#include <pmix_server.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "pmix/attributes.h"
#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "runtime/runtime.h"

namespace prte::pmix {
namespace {

using detail::verbose;

// Everything PMIx_server_IOF_deliver is handed must live until its callback: PMIx 4.2 keeps the
// *pointer* to the source, not a copy (a source on our stack came out as a garbage rank, and
// chunks whose namespace was garbage matched no tool and were lost).
struct OutputChunk {
    pmix_proc_t source{};
    std::vector<char> bytes;
    pmix_byte_object_t object{};
    InfoArray info;
};

void release_info(pmix_status_t, void* cbdata) { delete static_cast<InfoArray*>(cbdata); }

// PMIx's thread.
void release_chunk(pmix_status_t, void* cbdata)
{
    auto* chunk = static_cast<OutputChunk*>(cbdata);
    detail::released_by_pmix(chunk->bytes.size());
    delete chunk;
}

void send_chunk(OutputChunk* chunk, pmix_iof_channel_t channel)
{
    detail::handed_to_pmix(chunk->bytes.size());
    chunk->object.bytes = chunk->bytes.data();
    chunk->object.size = chunk->bytes.size();
    pmix_status_t rc = PMIx_server_IOF_deliver(&chunk->source, channel, &chunk->object, chunk->info.data(),
                                               chunk->info.size(), release_chunk, chunk);
    if (rc != PMIX_SUCCESS) {
        verbose()(1, "cannot forward output of {}: {}", describe(chunk->source), PMIx_Error_string(rc));
        release_chunk(rc, chunk);
    }
}

}  // namespace

namespace {

// Where a job's output goes when it is not its own: a job spawned by a process (MPI_Comm_spawn)
// has no tool pulling its output, so it is delivered as the root of its job tree's, whose tool
// (prun) pulls that, with kOutputSource naming the writer (issue 32, item 2). Null for a root.
runtime::JobPtr output_sink(const runtime::Job& job)
{
    const runtime::JobTable& jobs = runtime::Runtime::instance().jobs();
    runtime::JobPtr self = jobs.find(job.nspace);
    if (!self) return nullptr;
    runtime::JobPtr root = jobs.root_of(self);
    return root == self ? nullptr : root;
}

OutputForwarder& output_forwarder() { return detail::host().output_forwarder; }

// prun --output tag-detailed: the writer's node and pid on each chunk, when the tool asked for it
// (on the job its output is delivered as). Looked up as the chunk goes: a held chunk goes once the
// job runs, when the master has every process's pid; a job already gone from the table names
// neither, and the tool shows "unknown", as PMIx does.
void add_writer_place(const std::string& writer, const std::string& delivered_as, runtime::Rank rank, InfoArray& info)
{
    const runtime::JobTable& jobs = runtime::Runtime::instance().jobs();
    runtime::JobPtr sink = jobs.find(delivered_as);
    if (!sink || !sink->output.tag_detailed) return;
    runtime::JobPtr job = writer == delivered_as ? sink : jobs.find(writer);
    const runtime::Proc* proc = job ? job->proc(rank) : nullptr;
    if (!proc) return;
    if (proc->node) info.add_string(PMIX_HOSTNAME, proc->node->name);
    if (proc->pid > 0) {
        pid_t pid = proc->pid;
        info.add(PMIX_PROC_PID, &pid, PMIX_PID);
    }
}

}  // namespace

void set_output_forwarder(OutputForwarder forwarder) { output_forwarder() = std::move(forwarder); }

void deliver_output(const runtime::Job& job, runtime::Rank rank, pmix_iof_channel_t channel, const char* data,
                    size_t size)
{
    // The end of one stream needs no message: the job's end is marked once, below.
    if (size == 0) return;
    if (output_forwarder()) {
        detail::count_forwarded(job.nspace, size);
        output_forwarder()(job, rank, channel, data, size);
        return;
    }
    if (!detail::server_running()) return;
    runtime::JobPtr sink = output_sink(job);
    const std::string& delivered_as = sink ? sink->nspace : job.nspace;
    if (detail::hold_chunk(delivered_as, job, rank, channel, data, size)) return;
    detail::send_output(job.nspace, delivered_as, rank, channel, data, size);
}

namespace detail {

// Needs neither job to be in the table still: a held chunk is sent when its hold is released,
// and a spawned job whose output waits in its root's hold can have ended, and gone from the
// table, before prun asks for it (its chunks were dropped then: mpich_one_job's spawn check
// failed about once in five runs on a loaded machine).
void send_output(const std::string& writer, const std::string& delivered_as, runtime::Rank rank,
                 pmix_iof_channel_t channel, const char* data, size_t size)
{
    if (!server_running()) return;
    // Counted once, when sent: a held chunk comes back here when its hold is released, and
    // counting it at both times left the window short by the hold's size for good (a job paused
    // for ever once its hold had passed the window's resume mark).
    count_sent(writer, size);
    auto* chunk = new OutputChunk;
    PMIX_LOAD_PROCID(&chunk->source, delivered_as.c_str(), rank);
    if (writer != delivered_as) {
        pmix_proc_t source;
        PMIX_LOAD_PROCID(&source, writer.c_str(), rank);
        chunk->info.add_proc(kOutputSource, source);
    }
    chunk->bytes.assign(data, data + size);
    if (rank == PMIX_RANK_UNDEF) {
        chunk->info.add_bool(kDvmReport, true);  // the DVM's own report (attributes.h)
    } else {
        add_writer_place(writer, delivered_as, rank, chunk->info);
    }
    verbose()(10, "output of {}: {} byte(s) on {}", describe(chunk->source), size, PMIx_IOF_channel_string(channel));
    send_chunk(chunk, channel);
}

}  // namespace detail

// The job's last output chunk: rank WILDCARD with PMIX_IOF_COMPLETE. PMIx does not order IOF and
// events among themselves on a tool's connection (a job's last line can reach prun after its
// PMIX_EVENT_JOB_END), but it does keep IOF chunks in order, so a tool that waits for this marker
// after the end event has every byte.
void deliver_output_complete(const runtime::Job& job)
{
    if (!detail::server_running()) return;
    // A descendant's output went out as its root's: its end is not the root's end.
    if (output_sink(job)) return;
    auto* chunk = new OutputChunk;
    PMIX_LOAD_PROCID(&chunk->source, job.nspace.c_str(), PMIX_RANK_WILDCARD);
    chunk->bytes.assign(1, '\0');  // PMIx drops empty chunks; the tool ignores this byte
    chunk->info.add_bool(PMIX_IOF_COMPLETE, true);
    verbose()(10, "output of job {} complete", job.nspace);
    send_chunk(chunk, PMIX_FWD_STDOUT_CHANNEL);
}

// spec 7.4.5 (NOTIFY_COMPLETED): the originator hears of the end with the job's status; prun
// waits for this event and exits with PMIX_JOB_TERM_STATUS. An originator on a daemon's node (a
// relayed spawn) is told by its own daemon's server.
void notify_job_end(const runtime::JobPtr& job)
{
    if (!detail::server_running()) return;
    if (detail::relay_job_end(*job)) return;
    // A failure below it in its tree (state/dvm count_in_tree_status) is the job's status, unless
    // its spawner asked for its own only (PMIX_REPORT_CHILD_SEP) or it failed itself.
    if (job->exit_code == 0 && job->children_exit_code != 0 && !job->report_children_separately) {
        detail::notify_job_end_event(job->nspace, job->children_exit_code,
                                     job->children_failure + "; with --report-child-jobs-separately prun gives "
                                                             "this job's own status only",
                                     job->originator);
        return;
    }
    detail::notify_job_end_event(job->nspace, job->exit_code, job->abort_message, job->originator);
}

// PMIX_EVENT_JOB_START, then PMIX_LAUNCH_COMPLETE: every process of the job has started. To
// every process and tool of the DVM that registered for them, wherever it runs (the job's own
// tool among them, and a debugger waiting for its target), once each: raised on every node, each
// server handing it to its own registrants. Non-default (a default handler, such as Open MPI's,
// takes any event for an error) and not cached (a later registrant has no use for a past start).
void notify_job_start(const runtime::JobPtr& job)
{
    if (!detail::server_running() || job->is_daemon_job) return;
    pmix_proc_t affected;
    PMIX_LOAD_PROCID(&affected, job->nspace.c_str(), PMIX_RANK_WILDCARD);
    for (pmix_status_t code : {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE}) {
        InfoArray info;
        info.add_proc(PMIX_EVENT_AFFECTED_PROC, affected);
        info.add_string(PMIX_NSPACE, job->nspace);
        info.add_bool(PMIX_EVENT_NON_DEFAULT, true);
        info.add_bool(PMIX_EVENT_DO_NOT_CACHE, true);
        verbose()(2, "job {}: {}; telling every node", job->nspace, PMIx_Error_string(code));
        if (!detail::raise_everywhere(code, detail::server_proc(), PMIX_RANGE_SESSION, info)) {
            verbose()(1, "cannot notify {} of job {}: its info cannot be packed", PMIx_Error_string(code), job->nspace);
        }
    }
}

// A process ended abnormally. Processes anywhere that registered for the code hear of it, with
// PMIX_EVENT_AFFECTED_PROC naming it (a handler registered with PMIX_EVENT_AFFECTED_PROC or
// _PROCS hears only of those, PMIx filters); the source is the process itself, as PRRTE sends it.
// Non-default: a default handler (Open MPI's aborts its job) is never called for another job's
// failure. Not cached, like the job end: nobody registers later for a failure already past.
void notify_proc_failure(const runtime::Job& job, const runtime::Proc& proc, pmix_status_t code,
                         const std::string& message)
{
    if (!detail::server_running()) return;
    pmix_proc_t affected;
    PMIX_LOAD_PROCID(&affected, job.nspace.c_str(), proc.rank);
    InfoArray info;
    info.add_proc(PMIX_EVENT_AFFECTED_PROC, affected);
    info.add_int(PMIX_EXIT_CODE, proc.exit_code);
    if (!message.empty()) info.add_string(PMIX_EVENT_TEXT_MESSAGE, message);
    info.add_bool(PMIX_EVENT_NON_DEFAULT, true);
    info.add_bool(PMIX_EVENT_DO_NOT_CACHE, true);
    verbose()(2, "{} of {}: telling every node", PMIx_Error_string(code), describe(affected));
    if (!detail::raise_everywhere(code, affected, PMIX_RANGE_GLOBAL, info)) {
        verbose()(1, "cannot notify {} of {}: its info cannot be packed", PMIx_Error_string(code), describe(affected));
    }
}

namespace detail {

void notify_from_dvm(pmix_status_t code, pmix_data_range_t range, std::unique_ptr<InfoArray> info,
                     const std::string& what)
{
    InfoArray* held = info.release();
    pmix_status_t rc = PMIx_Notify_event(code, &server_proc(), range, held->data(), held->size(), release_info, held);
    if (rc != PMIX_SUCCESS) {
        if (rc != PMIX_OPERATION_SUCCEEDED) verbose()(1, "cannot notify {}: {}", what, PMIx_Error_string(rc));
        delete held;
    }
}

void notify_job_end_event(const std::string& nspace, int exit_code, const std::string& message,
                          const std::optional<pmix_proc_t>& originator)
{
    auto info = std::make_unique<InfoArray>();
    pmix_proc_t affected;
    PMIX_LOAD_PROCID(&affected, nspace.c_str(), PMIX_RANK_WILDCARD);
    info->add_proc(PMIX_EVENT_AFFECTED_PROC, affected);
    // PMIX_STATUS as pmix_common.h types it; value.data.status and .integer are the same int.
    info->add_status(PMIX_JOB_TERM_STATUS, exit_code);
    if (!message.empty()) info->add_string(PMIX_EVENT_TEXT_MESSAGE, message);
    info->add_bool(PMIX_EVENT_NON_DEFAULT, true);
    // Not cached: PMIx 4.2.2 otherwise keeps every job's end event (~3 KB) for late registrants,
    // and prun registers for it before it spawns (issue 14 item 3).
    info->add_bool(PMIX_EVENT_DO_NOT_CACHE, true);
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    if (originator) {
        range = PMIX_RANGE_CUSTOM;
        info->add_proc_array(PMIX_EVENT_CUSTOM_RANGE, &*originator, 1);
    }
    verbose()(2, "job {} ended with status {}{}; telling {}", nspace, exit_code,
              message.empty() ? "" : " (" + message + ")",
              originator ? describe(*originator) : std::string("the session"));
    notify_from_dvm(PMIX_EVENT_JOB_END, range, std::move(info), fmt::format("the end of job {}", nspace));
}

}  // namespace detail
}  // namespace prte::pmix
