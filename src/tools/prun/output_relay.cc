#include "tools/prun/output_relay.h"

#include <atomic>
#include <string_view>

#include "pmix/attributes.h"
#include "pmix/info_array.h"
#include "tools/prun/tool_connection.h"

namespace prte::prun {

namespace {

constexpr uint64_t kAckEvery = 1u << 20;

// The relay that receives the output (see OutputRelay). Atomic: set and cleared on prun's main
// thread, read by the output callback on PMIx's thread.
std::atomic<OutputRelay*> receiver{nullptr};

void on_ack_answered(pmix_status_t, pmix_info_t*, size_t, void* cbdata, pmix_release_cbfunc_t release_fn,
                     void* release_cbdata)
{
    pmix_query_t* query = static_cast<pmix_query_t*>(cbdata);
    PMIX_QUERY_FREE(query, 1);
    if (release_fn) release_fn(release_cbdata);
}

}  // namespace

OutputRelay::OutputRelay(OutputWriter& writer, JobEvents& events, const output::VerboseStream& trace)
    : writer_(&writer), events_(events), trace_(trace)
{
    receiver = this;
}

OutputRelay::~OutputRelay()
{
    OutputRelay* self = this;
    receiver.compare_exchange_strong(self, nullptr);
}

void OutputRelay::on_output(size_t, pmix_iof_channel_t channel, pmix_proc_t* source, pmix_byte_object_t* payload,
                            pmix_info_t* info, size_t ninfo)
{
    if (OutputRelay* relay = receiver.load()) relay->receive(channel, source, payload, info, ninfo);
}

void OutputRelay::receive(pmix_iof_channel_t channel, const pmix_proc_t* source, const pmix_byte_object_t* payload,
                          const pmix_info_t* info, size_t ninfo)
{
    if (source && source->rank == PMIX_RANK_WILDCARD && pmix::has_flag(info, ninfo, PMIX_IOF_COMPLETE)) {
        {
            std::lock_guard<std::mutex> lock(events_.mutex);
            events_.output_complete.insert(source->nspace);
        }
        events_.wake();
        return;
    }
    OutputWriter* writer = writer_;
    if (!writer || !payload || !payload->bytes || payload->size == 0) return;
    // A job our job's processes spawned: delivered as ours, its writer named in kOutputSource. Not
    // acknowledged: the DVM's window is per job and counts only our job's own output.
    const pmix_info_t* writer_info = pmix::find_info(info, ninfo, pmix::kOutputSource);
    const pmix_proc_t* spawned =
        writer_info && writer_info->value.type == PMIX_PROC ? writer_info->value.data.proc : nullptr;
    if (source && !spawned) acknowledge(source->nspace, payload->size);
    Stream stream = (channel & PMIX_FWD_STDOUT_CHANNEL) ? Stream::out : Stream::err;
    if (pmix::has_flag(info, ninfo, pmix::kDvmReport)) {
        writer->deliver_unformatted(std::string_view(payload->bytes, payload->size), stream);
        return;
    }
    std::string_view text(payload->bytes, payload->size);
    // The writer's node and pid, which the DVM adds for --output tag-detailed (src/pmix/events.cc).
    ProcPlace place;
    const pmix_info_t* host = pmix::find_info(info, ninfo, PMIX_HOSTNAME);
    const pmix_info_t* pid = pmix::find_info(info, ninfo, PMIX_PROC_PID);
    if (host) place.host = pmix::value_string(host->value).value_or("");
    if (pid) place.pid = pmix::value_integer(pid->value).value_or(0);
    const ProcPlace* named = host || pid ? &place : nullptr;
    if (spawned) {
        writer->deliver(spawned->rank, stream, text, job_label_of(spawned->nspace), named);
    } else {
        writer->deliver(source ? source->rank : 0, stream, text, {}, named);
    }
    if (writer->stdout_broken()) events_.wake();
}

void OutputRelay::acknowledge(const char* nspace, size_t bytes)
{
    received_bytes_ += bytes;
    if (received_bytes_ - acked_bytes_ < kAckEvery) return;
    acked_bytes_ = received_bytes_;
    pmix_query_t* query;
    PMIX_QUERY_CREATE(query, 1);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, query->keys, pmix::kOutputAck);
    (void)rc;
    PMIX_INFO_CREATE(query->qualifiers, 2);
    query->nqual = 2;
    PMIx_Info_load(&query->qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    PMIx_Info_load(&query->qualifiers[1], pmix::kOutputAckedBytes, &acked_bytes_, PMIX_UINT64);
    if (PMIx_Query_info_nb(query, 1, on_ack_answered, query) != PMIX_SUCCESS) PMIX_QUERY_FREE(query, 1);
}

void OutputRelay::wait_for_barrier(std::chrono::milliseconds limit)
{
    events_.wait_until(limit, [this] { return events_.barrier_done; });
    std::lock_guard<std::mutex> lock(events_.mutex);
    events_.barrier_done = false;
}

void OutputRelay::choose_path(const runtime::dvm_registry::Entry& dvm, const pmix_proc_t& self)
{
    // A DVM found in our registry is a prte: it serves pull requests, so spare the round trips.
    if (!dvm.file.empty()) {
        path_ = OutputPath::pull;
        return;
    }
    pmix_proc_t probe;
    std::string ns = dvm.nspace.empty() ? std::string(self.nspace) : dvm.nspace;
    PMIX_LOAD_PROCID(&probe, ns.c_str(), PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_IOF_pull(&probe, 1, nullptr, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, nullptr, nullptr);
    if (rc < 0) {
        trace_(1, "the DVM does not serve IOF pull requests ({}): PMIx will write the job's output",
               tools::status_text(rc));
        path_ = OutputPath::library;
        return;
    }
    PMIx_IOF_deregister(static_cast<size_t>(rc), nullptr, 0, on_barrier, &events_);
    wait_for_barrier(std::chrono::milliseconds(2000));
    path_ = OutputPath::pull;
}

void OutputRelay::start(const std::string& nspace, const std::string& job_id)
{
    nspace_ = nspace;
    job_id_ = job_id;
    if (path_ != OutputPath::pull) return;
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace_.c_str(), PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_IOF_pull(&all, 1, nullptr, 0, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                                     on_output, nullptr, nullptr);
    if (rc < 0) {
        output::warning("cannot receive the output of job {}: {}", job_id_, tools::status_text(rc));
    } else {
        pull_ref_ = static_cast<size_t>(rc);
    }
}

void OutputRelay::wait_for_end_marker(std::chrono::milliseconds limit)
{
    if (path_ != OutputPath::pull || !pull_ref_) return;
    if (!events_.wait_until(limit, [this] { return events_.output_complete.count(nspace_) > 0; })) {
        trace_(1, "the DVM did not mark the end of job {}'s output", job_id_);
    }
}

void OutputRelay::wait_for_the_rest(std::chrono::milliseconds limit)
{
    if (path_ == OutputPath::pull && pull_ref_) {
        if (PMIx_IOF_deregister(*pull_ref_, nullptr, 0, on_barrier, &events_) == PMIX_SUCCESS) {
            wait_for_barrier(limit);
        }
    } else if (path_ == OutputPath::library) {
        pmix_query_t* query;
        PMIX_QUERY_CREATE(query, 1);
        pmix_status_t rc;
        PMIX_ARGV_APPEND(rc, query->keys, PMIX_QUERY_NAMESPACES);
        (void)rc;
        if (PMIx_Query_info_nb(query, 1, on_query_barrier, &events_) == PMIX_SUCCESS) {
            wait_for_barrier(limit);
        }
        PMIX_QUERY_FREE(query, 1);
    }
}

}  // namespace prte::prun
