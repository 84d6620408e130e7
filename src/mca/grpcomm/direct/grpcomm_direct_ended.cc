// A participating process that ended before it took part (grpcomm.h, participant_ended()).
//
// Only the daemon that hosted the process can tell which collectives it took part in: those this
// daemon contributed to, since a daemon contributes once all its local participants have called,
// that process included. signature_seq_ counts them per signature. The daemon sends the master
// that count for every signature naming the process, and the master broadcasts it. Every daemon
// then fails each collective naming the process that is numbered above the count, both those
// under way and those that start later. The count is fixed once, by the one daemon that could
// contribute for the process, so every daemon draws the same line whatever order messages arrive
// in: a collective at or below it completes everywhere (the process took part), one above it
// fails everywhere. An optional collective (Signature::optional) above the count leaves the
// process out instead: every daemon stops waiting for the daemons that host nothing else of it, and
// the master, which hears of every ended process before any other daemon does (it broadcasts
// them), names in its release those it left out.
#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "util/strings.h"

namespace prte::grpcomm::direct {
namespace {

using runtime::Rank;

const output::VerboseStream& verbose() { return base::framework().verbose(); }

// Whether the process ("ns:rank") is one of `procs` (each "ns:rank" or "ns:*").
bool names(const std::vector<std::string>& procs, const std::string& proc, const std::string& nspace)
{
    for (const auto& p : procs) {
        if (p == proc || p == nspace + ":*") return true;
    }
    return false;
}

// The processes of a signature ("ns:rank,ns:*,...|id").
std::vector<std::string> procs_of(const std::string& signature)
{
    return util::split(signature.substr(0, signature.rfind('|')), ',', true);
}

}  // namespace

namespace wire {

rml::Payload encode(const EndedParticipant& e)
{
    rml::Writer w;
    write_proc(w, e.proc);
    w.u32(static_cast<uint32_t>(e.taken_part.size()));
    for (const auto& [signature, count] : e.taken_part) w.str(signature).u64(count);
    return w.take();
}

Status decode(const rml::Payload& in, EndedParticipant& e)
{
    rml::Reader r(in, "ended participant");
    if (read_proc(r, e.proc)) {
        uint32_t n = r.u32();
        for (uint32_t i = 0; i < n && r.ok(); ++i) {
            std::string signature = r.str();
            e.taken_part[signature] = r.u64();
        }
    }
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

bool names_process(const std::vector<std::string>& procs, const std::string& proc, const std::string& nspace)
{
    return names(procs, proc, nspace);
}

void DirectModule::participant_ended(const runtime::ProcessName& proc) noexcept
{
    std::string name = proc_text(proc);
    if (ended_.count(name)) return;  // told already
    Ended ended;
    ended.proc = proc;
    for (const auto& [signature, count] : signature_seq_) {
        if (names(procs_of(signature), name, proc.nspace)) ended.taken_part[signature] = count;
    }
    rml::Payload message = wire::encode(wire::EndedParticipant{proc, ended.taken_part});
    // Here first, so that a collective this daemon starts meanwhile fails at once.
    apply_ended(std::move(ended));
    if (transport_->self() == 0) {
        if (Status st = xcast(rml::tag::participant_ended_all, message, {}); !st) {
            output::warning("cannot tell the daemons that {} ended: {}", name, st.message());
        }
        return;
    }
    if (Status st = transport_->send(0, rml::tag::participant_ended, std::move(message)); !st) {
        verbose()(1, "cannot tell the master that {} ended: {}", name, st.message());
    }
}

// Master: a daemon's process ended; every daemon must know.
void DirectModule::on_ended(Rank origin, rml::Payload&& payload)
{
    if (transport_->self() != 0) return;
    if (Status st = xcast(rml::tag::participant_ended_all, payload, {}); !st) {
        output::warning("cannot broadcast daemon {}'s ended process: {}", origin, st.message());
    }
}

void DirectModule::on_ended_all(Rank origin, rml::Payload&& payload)
{
    wire::EndedParticipant e;
    if (Status st = wire::decode(payload, e); !st) {
        output::warning("dropped an ended participant from daemon {}: {}", origin, st.message());
        return;
    }
    apply_ended(Ended{std::move(e.proc), std::move(e.taken_part)});
}

void DirectModule::apply_ended(Ended ended)
{
    std::string name = proc_text(ended.proc);
    if (!ended_.emplace(name, std::move(ended)).second) return;  // known already (its own daemon)
    // Copies: a callback may change ended_ (a job released).
    std::vector<std::pair<std::string, runtime::ProcessName>> doomed;
    std::vector<std::string> leaving_out;
    for (auto& [key, op] : gathers_) {
        if (op.released) continue;
        const Ended* in_vain = ended_participant(op.procs, op.signature, op.seq);
        if (!in_vain) continue;
        if (op.optional) {
            refresh_participants(op);
            leaving_out.push_back(key);
        } else {
            doomed.emplace_back(key, in_vain->proc);
        }
    }
    verbose()(5, "{} ended: {} collective(s) under way it did not take part in fail, {} optional one(s) go on without it",
              name, doomed.size(), leaving_out.size());
    for (const auto& [key, proc] : doomed) {
        fail_gather(key, {Errc::peer_ended, fmt::format("process {} ended before it took part", proc_text(proc))}, &proc);
    }
    for (const auto& key : leaving_out) {
        auto it = gathers_.find(key);
        if (it != gathers_.end()) maybe_send_up(it->second);
    }
}

// The ended process the collective waits for in vain, or nullptr.
const DirectModule::Ended* DirectModule::ended_participant(const std::vector<std::string>& procs,
                                                           const std::string& signature, uint64_t seq) const
{
    std::vector<const Ended*> all = ended_participants(procs, signature, seq);
    return all.empty() ? nullptr : all.front();
}

std::vector<const DirectModule::Ended*> DirectModule::ended_participants(const std::vector<std::string>& procs,
                                                                         const std::string& signature,
                                                                         uint64_t seq) const
{
    std::vector<const Ended*> out;
    for (const auto& [name, ended] : ended_) {
        if (!names(procs, name, ended.proc.nspace)) continue;
        auto it = ended.taken_part.find(signature);
        if (seq > (it == ended.taken_part.end() ? 0 : it->second)) out.push_back(&ended);
    }
    return out;
}

}  // namespace prte::grpcomm::direct
