// What a daemon does for another daemon on behalf of a PMIx server: stdin for a process on its node
// (relayed from the master, acknowledged once accepted), and the direct modex.
//
// Direct modex across nodes: a process asks its PMIx server for another process's data that no
// fence delivered; if that process lives on another daemon's node, this server asks that daemon,
// whose PMIx server answers from what the process put (PMIx_server_dmodex_request), and hands the
// bytes back to PMIx here.
#include <pmix.h>
#include <pmix_server.h>

#include <algorithm>
#include <map>

#include "mca/odls/base/odls_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {
namespace {

using runtime::Rank;

struct Pending {
    pmix_modex_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
};

struct State {
    uint64_t next_id = 1;
    std::map<uint64_t, Pending> pending;
};

State& state()
{
    static State s;
    return s;
}

rml::Messenger& messenger() { return rml::Messenger::instance(); }

void release_payload(void* cbdata) { delete static_cast<rml::Payload*>(cbdata); }

void answer(const Pending& p, pmix_status_t status, rml::Payload data)
{
    auto* held = new rml::Payload(std::move(data));
    p.cbfunc(status, held->empty() ? nullptr : reinterpret_cast<char*>(held->data()), held->size(), p.cbdata,
             release_payload, held);
}

void reply(Rank to, uint64_t id, pmix_status_t status, const rml::Payload& data)
{
    rml::Writer w;
    w.u64(id).i32(status).bytes(data);
    messenger().send(to, rml::tag::direct_modex_reply, w.take());
}

// Another daemon asks for one of our processes' data.
void on_request(Rank origin, rml::Payload&& payload)
{
    rml::Reader r(payload, "direct modex request");
    uint64_t id = r.u64();
    std::string nspace = r.str();
    Rank rank = r.u32();
    if (!r.ok()) {
        output::warning("dropped a direct modex request from daemon {}: {}", origin, r.error());
        return;
    }
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
    rml::Reader r(payload, "direct modex reply");
    uint64_t id = r.u64();
    pmix_status_t status = r.i32();
    rml::Payload data = r.bytes();
    if (!r.ok()) {
        output::warning("dropped a direct modex reply from daemon {}: {}", origin, r.error());
        return;
    }
    auto it = state().pending.find(id);
    if (it == state().pending.end()) return;
    Pending p = it->second;
    state().pending.erase(it);
    answer(p, status, std::move(data));
}

// Stdin relayed to a process on another node. A push is answered at once while little is in
// flight to that process, and only once the far daemon has accepted it beyond that: a tool streaming
// a large input is paced by the reader, while a short input - most of them - is never answered
// after its tool has gone (PMIx reports replying to a departed tool as an error of its own).
constexpr size_t kStdinWindow = 256 * 1024;

struct StdinSent {
    std::string target;  // "nspace:rank"
    size_t size = 0;
    std::function<void(const Status&)> done;  // held when beyond the window
};

std::map<uint64_t, StdinSent>& stdin_waiting()
{
    static std::map<uint64_t, StdinSent> waiting;
    return waiting;
}

std::map<std::string, size_t>& stdin_in_flight()
{
    static std::map<std::string, size_t> bytes;
    return bytes;
}

void on_stdin(Rank origin, rml::Payload&& payload)
{
    rml::Reader r(payload, "stdin");
    uint64_t id = r.u64();
    std::string nspace = r.str();
    Rank rank = r.u32();
    rml::Payload data = r.bytes();
    bool eof = r.u8() != 0;
    if (!r.ok()) {
        output::warning("dropped stdin from daemon {}: {}", origin, r.error());
        return;
    }
    auto ack = [origin, id](const Status& st) {
        rml::Writer w;
        w.u64(id).i32(detail::to_pmix_status(st));
        messenger().send(origin, rml::tag::stdin_ack, w.take());
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
    rml::Reader r(payload, "stdin acknowledgement");
    uint64_t id = r.u64();
    pmix_status_t status = r.i32();
    if (!r.ok()) return;
    auto it = stdin_waiting().find(id);
    if (it == stdin_waiting().end()) return;
    StdinSent sent = std::move(it->second);
    stdin_waiting().erase(it);
    auto flight = stdin_in_flight().find(sent.target);
    if (flight != stdin_in_flight().end()) {
        flight->second -= std::min(flight->second, sent.size);
        if (flight->second == 0) stdin_in_flight().erase(flight);
    }
    if (sent.done) sent.done(status == PMIX_SUCCESS ? Status() : Status(Errc::refused, PMIx_Error_string(status)));
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
    static uint64_t next_id = 1;
    uint64_t id = next_id++;
    rml::Writer w;
    w.u64(id).str(job->nspace).u32(rank).bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size()).u8(eof ? 1 : 0);
    Status st = messenger().send(p->node->daemon, rml::tag::stdin_data, w.take());
    if (!st) {
        done(st);
        return true;
    }
    std::string target = job->nspace + ":" + std::to_string(rank);
    size_t& in_flight = stdin_in_flight()[target];
    in_flight += data.size();
    StdinSent sent{target, data.size(), nullptr};
    if (in_flight <= kStdinWindow) {
        done({});
    } else {
        sent.done = std::move(done);
    }
    stdin_waiting()[id] = std::move(sent);
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
        uint64_t id = state().next_id++;
        state().pending[id] = Pending{cbfunc, cbdata};
        rml::Writer w;
        w.u64(id).str(target.nspace).u32(target.rank);
        verbose()(5, "direct modex for {}: asking daemon {}", describe(target), daemon);
        if (Status st = messenger().send(daemon, rml::tag::direct_modex, w.take()); !st) {
            state().pending.erase(id);
            cbfunc(PMIX_ERR_UNREACH, nullptr, 0, cbdata, nullptr, nullptr);
        }
    });
    return PMIX_SUCCESS;
}

}  // namespace detail
}  // namespace prte::pmix
