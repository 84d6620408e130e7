// What a daemon does for another daemon on behalf of a PMIx server: stdin for a process on its node
// (relayed from the master, acknowledged once accepted), and the direct modex.
//
// Direct modex across nodes: a process asks its PMIx server for another process's data that no
// fence delivered; if that process lives on another daemon's node, this server asks that daemon,
// whose PMIx server answers from what the process put (PMIx_server_dmodex_request), and hands the
// bytes back to PMIx here.
//
// Both wait for the other daemon among the requests relayed (detail::relays(), pending_relays.h):
// when it, or a daemon on the way there and back, is lost, or the server stops, they are answered
// PMIX_ERR_UNREACH instead of waiting for ever.
#include <pmix.h>
#include <pmix_server.h>

#include <algorithm>
#include <optional>

#include "mca/odls/base/odls_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {

namespace wire {

rml::Payload encode(const ModexRequest& m)
{
    rml::Writer w;
    w.u64(m.id).str(m.nspace).u32(m.rank);
    return w.take();
}

Status decode(const rml::Payload& in, ModexRequest& m)
{
    rml::Reader r(in, "direct modex request");
    m.id = r.u64();
    m.nspace = r.str();
    m.rank = r.u32();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const ModexReply& m)
{
    rml::Writer w;
    w.u64(m.id).i32(m.status).bytes(m.data);
    return w.take();
}

Status decode(const rml::Payload& in, ModexReply& m)
{
    rml::Reader r(in, "direct modex reply");
    m.id = r.u64();
    m.status = r.i32();
    m.data = r.bytes();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const StdinData& s)
{
    rml::Writer w;
    w.u64(s.id).str(s.nspace).u32(s.rank).bytes(s.data).u8(s.eof ? 1 : 0);
    return w.take();
}

Status decode(const rml::Payload& in, StdinData& s)
{
    rml::Reader r(in, "stdin");
    s.id = r.u64();
    s.nspace = r.str();
    s.rank = r.u32();
    s.data = r.bytes();
    s.eof = r.u8() != 0;
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const StdinAck& a)
{
    rml::Writer w;
    w.u64(a.id).i32(a.status);
    return w.take();
}

Status decode(const rml::Payload& in, StdinAck& a)
{
    rml::Reader r(in, "stdin acknowledgement");
    a.id = r.u64();
    a.status = r.i32();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

namespace {

using runtime::Rank;

rml::Messenger& messenger() { return rml::Messenger::instance(); }

void release_payload(void* cbdata) { delete static_cast<rml::Payload*>(cbdata); }

void answer(pmix_modex_cbfunc_t cbfunc, void* cbdata, pmix_status_t status, rml::Payload data)
{
    auto* held = new rml::Payload(std::move(data));
    cbfunc(status, held->empty() ? nullptr : reinterpret_cast<char*>(held->data()), held->size(), cbdata,
           release_payload, held);
}

void reply(Rank to, uint64_t id, pmix_status_t status, const rml::Payload& data)
{
    if (Status st = messenger().send(to, rml::tag::direct_modex_reply, wire::encode(wire::ModexReply{id, status, data})); !st) {
        detail::verbose()(1, "cannot answer daemon {}'s direct modex request {}: {}", to, id, st.message());
    }
}

// Another daemon asks for one of our processes' data.
void on_request(Rank origin, rml::Payload&& payload)
{
    wire::ModexRequest request;
    if (Status st = wire::decode(payload, request); !st) {
        output::warning("dropped a direct modex request from daemon {}: {}", origin, st.message());
        return;
    }
    const uint64_t id = request.id;
    const std::string& nspace = request.nspace;
    const Rank rank = request.rank;
    struct Ask {
        Rank origin;
        uint64_t id;
    };
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
    detail::verbose()(5, "direct modex for {} asked by daemon {}", describe(proc), origin);
    auto* ask = new Ask{origin, id};
    pmix_status_t rc = PMIx_server_dmodex_request(
        &proc,
        [](pmix_status_t status, char* data, size_t size, void* cbdata) {
            std::unique_ptr<Ask> a(static_cast<Ask*>(cbdata));
            rml::Payload bytes(data, data + (data ? size : 0));
            detail::post([a = *a, status, bytes = std::move(bytes)] { reply(a.origin, a.id, status, bytes); });
        },
        ask);
    if (rc != PMIX_SUCCESS) {
        delete ask;
        reply(origin, id, rc, {});
    }
}

void on_reply(Rank origin, rml::Payload&& payload)
{
    wire::ModexReply reply;
    if (Status st = wire::decode(payload, reply); !st) {
        output::warning("dropped a direct modex reply from daemon {}: {}", origin, st.message());
        return;
    }
    detail::answer_relayed(reply.id, {reply.status, {}, {}, std::move(reply.data)}, "direct modex reply", origin);
}

// Stdin relayed to a process on another node. A push is answered at once while little is in
// flight to that process, and only once the far daemon has accepted it beyond that: a tool streaming
// a large input is paced by the reader, while a short input - most of them - is never answered
// after its tool has gone (PMIx reports replying to a departed tool as an error of its own).
constexpr size_t kStdinWindow = 256 * 1024;

void on_stdin(Rank origin, rml::Payload&& payload)
{
    wire::StdinData in;
    if (Status st = wire::decode(payload, in); !st) {
        output::warning("dropped stdin from daemon {}: {}", origin, st.message());
        return;
    }
    const uint64_t id = in.id;
    const std::string& nspace = in.nspace;
    const Rank rank = in.rank;
    const rml::Payload& data = in.data;
    const bool eof = in.eof;
    auto ack = [origin, id](const Status& st) {
        wire::StdinAck ack{id, detail::to_pmix_status(st)};
        if (Status sent = messenger().send(origin, rml::tag::stdin_ack, wire::encode(ack)); !sent) {
            detail::verbose()(1, "cannot acknowledge daemon {}'s stdin {}: {}", origin, id, sent.message());
        }
    };
    runtime::JobPtr job = runtime::Runtime::instance().jobs().find(nspace);
    odls::Module* odls = odls::base::module();
    if (!job || !odls) {
        ack({});  // the job is gone here: nothing will read it
        return;
    }
    odls->write_stdin(job, rank, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), eof, ack);
}

void on_stdin_ack(Rank, rml::Payload&& payload)
{
    wire::StdinAck ack;
    if (!wire::decode(payload, ack)) return;
    detail::relays().answer(ack.id, {ack.status, {}, {}, {}});
}

}  // namespace

void enable_remote_services()
{
    messenger().register_handler(rml::tag::direct_modex, on_request);
    messenger().register_handler(rml::tag::direct_modex_reply, on_reply);
    messenger().register_handler(rml::tag::stdin_data, on_stdin);
    messenger().register_handler(rml::tag::stdin_ack, on_stdin_ack);
    detail::enable_spawn_relay();
    detail::enable_allocation_relay();
    detail::enable_alloc_status_relay();
    detail::enable_output_relay();
    detail::enable_event_relay();
    detail::enable_group_leaders();
    detail::enable_group_records();
    detail::enable_publish_relay();
}

void deliver_remote_output(const runtime::Job& job, Rank daemon, pmix_iof_channel_t channel, runtime::Rank rank,
                           const char* data, size_t size)
{
    deliver_output(job, rank, channel, data, size);
    detail::received_from_daemon(job, daemon, size);
}

namespace detail {

bool forward_stdin(const runtime::JobPtr& job, Rank rank, const std::string& data, bool eof,
                   std::function<void(const Status&)> done)
{
    runtime::Proc* p = job->proc(rank);
    auto& rt = runtime::Runtime::instance();
    if (!p || !p->node || p->node->daemon == rt.identity().rank || p->node->daemon == runtime::kInvalidRank) return false;
    Rank daemon = p->node->daemon;
    std::string target = job->nspace + ":" + std::to_string(rank);
    const size_t size = data.size();
    auto flight = stdin_in_flight().find(target);
    const bool within_window = (flight == stdin_in_flight().end() ? 0 : flight->second) + size <= kStdinWindow;
    auto send = [&](uint64_t id) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
        wire::StdinData message{id, job->nspace, rank, rml::Payload(bytes, bytes + size), eof};
        return messenger().send(daemon, rml::tag::stdin_data, wire::encode(message));
    };
    // Accepted over there, or refused, or lost with a daemon on the way: no longer in flight, and a
    // push held beyond the window is answered.
    std::function<void(const Status&)> held;
    if (!within_window) held = done;
    auto settled = [target, size, held = std::move(held)](const RelayAnswer& a) {
        auto& bytes = stdin_in_flight();
        if (auto f = bytes.find(target); f != bytes.end()) {
            f->second -= std::min(f->second, size);
            if (f->second == 0) bytes.erase(f);
        }
        if (!held) return;
        if (a.status == PMIX_SUCCESS) return held({});
        if (a.status == PMIX_ERR_UNREACH) return held(Status(Errc::unreachable, a.message));
        held(Status(Errc::refused, PMIx_Error_string(a.status)));
    };
    if (Status st = relays().relay(std::nullopt, route_to_daemon(daemon), send, settled); !st) {
        done(st);
        return true;
    }
    stdin_in_flight()[target] += size;
    if (within_window) done({});
    return true;
}

}  // namespace detail

namespace detail {

pmix_status_t direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t, pmix_modex_cbfunc_t cbfunc,
                           void* cbdata)
{
    pmix_proc_t target = *proc;
    post([target, cbfunc, cbdata] {
        auto& rt = runtime::Runtime::instance();
        runtime::JobPtr job = rt.jobs().find(target.nspace);
        runtime::Proc* p = job ? job->proc(target.rank) : nullptr;
        Rank daemon = p && p->node ? p->node->daemon : runtime::kInvalidRank;
        if (daemon == runtime::kInvalidRank || daemon == rt.identity().rank || !messenger().started()) {
            verbose()(5, "direct modex for {}: not found", describe(target));
            cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        auto send = [&](uint64_t id) {
            return messenger().send(daemon, rml::tag::direct_modex, wire::encode(wire::ModexRequest{id, target.nspace, target.rank}));
        };
        // The data, or an error: that daemon's, or ours when it (or a daemon on the way) is lost.
        auto answered = [cbfunc, cbdata](const RelayAnswer& a) { answer(cbfunc, cbdata, a.status, a.data); };
        verbose()(5, "direct modex for {}: asking daemon {}", describe(target), daemon);
        if (Status st = relays().relay(std::nullopt, route_to_daemon(daemon), send, answered); !st) {
            cbfunc(PMIX_ERR_UNREACH, nullptr, 0, cbdata, nullptr, nullptr);
        }
    });
    return PMIX_SUCCESS;
}

}  // namespace detail
}  // namespace prte::pmix
