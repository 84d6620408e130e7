// Normal ends that a collective waits for in vain (Signature::watch_normal_ends; see grpcomm.h).
//
// A process that ends normally is told to no other daemon: that would cost a broadcast for every
// process of every job. But a PMIx group member that leaves normally without joining the group's
// construct or destruct left the others waiting for ever when it was alone on its node: its daemon
// never contributes, and no other daemon learns why. So each daemon that contributes to a watched
// collective asks the master to have it watched; the master passes that on, once per collective,
// to the daemons hosting its processes; each keeps the watch until the collective is released. A
// watched process of its own that ends, or had ended, normally before this daemon took part in the
// collective (so before the process could have) is told like one that ended abnormally
// (participant_ended), which fails the collective, or leaves the process out of an optional one.
// Normal ends after every watched collective over them was released cost nothing.
#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "rml/buffer.h"
#include "rml/rml.h"

namespace prte::grpcomm::direct {
namespace {

using runtime::Rank;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

}  // namespace

namespace wire {

rml::Payload encode(const WatchRequest& watch)
{
    rml::Writer w;
    w.str(watch.signature).u64(watch.seq).strings(watch.procs);
    return w.take();
}

Status decode(const rml::Payload& in, WatchRequest& watch, const char* what)
{
    rml::Reader r(in, what);
    watch.signature = r.str();
    watch.seq = r.u64();
    watch.procs = r.strings();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

// Waits for the process: a watched collective under way names it, and this daemon (so the
// process) has not taken part in it.
bool DirectModule::watches(const runtime::ProcessName& proc) noexcept
{
    std::string name = proc_text(proc);
    for (const auto& [key, w] : watches_) {
        if (!names_process(w.procs, name, proc.nspace)) continue;
        auto started = signature_seq_.find(w.signature);
        if (started == signature_seq_.end() || started->second < w.seq) return true;
    }
    return false;
}

void DirectModule::process_left(const runtime::ProcessName& proc) noexcept
{
    if (!watches(proc)) {
        left_[proc_text(proc)] = proc;  // a watch may come later
        return;
    }
    verbose()(5, "{} ended normally before it took part in a watched collective; telling every daemon",
              proc_text(proc));
    participant_ended(proc);
}

void DirectModule::request_watch(const std::string& signature, uint64_t seq, const std::vector<std::string>& procs)
{
    rml::Payload payload = wire::encode(wire::WatchRequest{signature, seq, procs});
    if (transport_->self() == 0) {
        on_watch_request(0, std::move(payload));
    } else if (Status st = transport_->send(0, rml::tag::allgather_watch_request, payload); !st) {
        verbose()(1, "allgather {}: cannot ask the master to watch it: {}", op_key(signature, seq), st.message());
    }
}

// Master: once per collective, to the daemons hosting its processes.
void DirectModule::on_watch_request(Rank origin, rml::Payload&& payload)
{
    wire::WatchRequest request;
    if (Status st = wire::decode(payload, request); !st) {
        output::warning("dropped an allgather watch request from daemon {}: {}", origin, st.message());
        return;
    }
    const std::string& sig = request.signature;
    const uint64_t seq = request.seq;
    const std::vector<std::string>& procs = request.procs;
    if (seq <= released_through(sig) || !watches_passed_on_.emplace(sig, seq).second) return;
    for (Rank d : hosting_daemons(procs)) {
        if (d == transport_->self()) {
            on_watch(0, rml::Payload(payload));
        } else if (Status st = transport_->send(d, rml::tag::allgather_watch, payload); !st) {
            verbose()(1, "allgather {}: cannot ask daemon {} to watch it: {}", op_key(sig, seq), d, st.message());
        }
    }
}

// A daemon hosting some of the processes: watch, and tell of those that had already left.
void DirectModule::on_watch(Rank origin, rml::Payload&& payload)
{
    wire::WatchRequest request;
    if (Status st = wire::decode(payload, request, "allgather watch"); !st) {
        output::warning("dropped an allgather watch from daemon {}: {}", origin, st.message());
        return;
    }
    Watch w{std::move(request.signature), request.seq, std::move(request.procs)};
    if (w.seq <= released_through(w.signature)) return;
    std::string key = op_key(w.signature, w.seq);
    verbose()(10, "allgather {}: watched here for normal ends", key);
    watches_[key] = std::move(w);
    std::vector<runtime::ProcessName> gone;
    for (const auto& [name, proc] : left_) {
        if (watches(proc)) gone.push_back(proc);
    }
    for (const runtime::ProcessName& proc : gone) {
        left_.erase(proc_text(proc));
        verbose()(5, "{} had ended normally before it took part in the watched collective {}; telling every daemon",
                  proc_text(proc), key);
        participant_ended(proc);
    }
}

void DirectModule::drop_watches(const std::string& signature, uint64_t released)
{
    std::erase_if(watches_, [&](const auto& entry) {
        return entry.second.signature == signature && entry.second.seq <= released;
    });
    std::erase_if(watches_passed_on_, [&](const auto& op) { return op.first == signature && op.second <= released; });
}

void DirectModule::forget_watches(const std::string& nspace)
{
    std::erase_if(left_, [&](const auto& entry) { return nspace == entry.second.nspace; });
    std::erase_if(watches_, [&](const auto& entry) { return signature_mentions_job(entry.second.signature, nspace); });
    std::erase_if(watches_passed_on_, [&](const auto& op) { return signature_mentions_job(op.first, nspace); });
}

}  // namespace prte::grpcomm::direct
