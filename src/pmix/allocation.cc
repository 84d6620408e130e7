// PMIx_Allocation_request: from a tool or a process on the master's node it goes to the elastic
// DVM at once; from a process on a daemon's node the daemon relays it to the master, as spawns are
// (spawn_relay.cc). Phase one answers the call (status, PMIX_ALLOC_ID, PMIX_ALLOC_REQ_ID); phase
// two is one event, raised by the requester's own node's server (spec: elastic-dvm-spec.txt,
// "Two-phase model").
#include <pmix.h>

#include <cstring>
#include <map>

#include <fmt/format.h>

#include "pmix/attributes.h"
#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "pmix/wire_messages.h"
#include "prte_config.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/hostlist.h"

namespace prte::pmix::wire {

rml::Payload encode(const AllocationRequest& a)
{
    rml::Writer w;
    w.u64(a.id).str(a.nspace).u32(a.rank);
    w.u8(a.directive).strings(a.node_list).u64(a.num_nodes);
    w.str(a.alloc_id).str(a.req_id);
    return w.ok() ? w.take() : rml::Payload{};
}

Status decode(const rml::Payload& in, AllocationRequest& a)
{
    rml::Reader r(in, "allocation request");
    a.id = r.u64();
    a.nspace = r.str();
    a.rank = r.u32();
    a.directive = r.u8();
    a.node_list = r.strings();
    a.num_nodes = r.u64();
    a.alloc_id = r.str();
    a.req_id = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const AllocationReply& a)
{
    rml::Writer w;
    w.u64(a.id).i32(a.status).str(a.alloc_id).str(a.message);
    return w.take();
}

Status decode(const rml::Payload& in, AllocationReply& a)
{
    rml::Reader r(in, "allocation reply");
    a.id = r.u64();
    a.status = r.i32();
    a.alloc_id = r.str();
    a.message = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const AllocationEvent& a)
{
    rml::Writer w;
    w.str(a.nspace).u32(a.rank).str(a.alloc_id).str(a.req_id).u8(a.success ? 1 : 0).i32(a.cause);
    w.str(a.message);
    return w.take();
}

Status decode(const rml::Payload& in, AllocationEvent& a)
{
    rml::Reader r(in, "allocation event");
    a.nspace = r.str();
    a.rank = r.u32();
    a.alloc_id = r.str();
    a.req_id = r.str();
    a.success = r.u8() != 0;
    a.cause = r.i32();
    a.message = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace prte::pmix::wire

namespace prte::pmix::detail {
namespace {

using runtime::AllocDirective;
using runtime::Rank;

rml::Messenger& messenger() { return rml::Messenger::instance(); }
bool is_master() { return runtime::Runtime::instance().identity().role == mca::ProcessRole::master; }

std::optional<AllocDirective> directive_of(pmix_alloc_directive_t d)
{
    switch (d) {
    case PMIX_ALLOC_NEW: return AllocDirective::new_allocation;
    case PMIX_ALLOC_EXTEND: return AllocDirective::extend;
    case PMIX_ALLOC_RELEASE: return AllocDirective::release;
    case PMIX_ALLOC_REAQUIRE: return AllocDirective::reacquire;
    default: return std::nullopt;
    }
}

// What the DVM reads of a request (anything else stays in `info` for components).
Status translate(pmix_alloc_directive_t directive, const pmix_info_t data[], size_t ndata,
                 runtime::AllocationRequest& out)
{
    auto d = directive_of(directive);
    if (!d) return {Errc::bad_param, fmt::format("unknown allocation directive {}", static_cast<int>(directive))};
    out.directive = *d;
    for (size_t i = 0; data && i < ndata; ++i) {
        const pmix_info_t& info = data[i];
        if (PMIX_CHECK_KEY(&info, PMIX_ALLOC_NODE_LIST)) {
            auto text = value_string(info.value);
            if (!text) return {Errc::bad_param, "PMIX_ALLOC_NODE_LIST must be a string"};
            for (auto& entry : util::split_hostlist(*text)) {
                if (!entry.empty()) out.node_list.push_back(entry);
            }
            if (out.node_list.empty()) return {Errc::bad_param, fmt::format("PMIX_ALLOC_NODE_LIST '{}' names no node", *text)};
        } else if (PMIX_CHECK_KEY(&info, PMIX_ALLOC_NUM_NODES)) {
            int64_t n = -1;
            switch (info.value.type) {
            case PMIX_UINT64: n = static_cast<int64_t>(info.value.data.uint64); break;
            case PMIX_UINT32: n = info.value.data.uint32; break;
            case PMIX_INT: n = info.value.data.integer; break;
            case PMIX_SIZE: n = static_cast<int64_t>(info.value.data.size); break;
            default: return {Errc::bad_param, "PMIX_ALLOC_NUM_NODES must be an integer"};
            }
            if (n < 0) return {Errc::bad_param, fmt::format("PMIX_ALLOC_NUM_NODES {} is negative", n)};
            out.num_nodes = static_cast<uint64_t>(n);
        } else if (PMIX_CHECK_KEY(&info, PMIX_ALLOC_ID)) {
            if (auto text = value_string(info.value)) out.alloc_id = *text;
        } else if (PMIX_CHECK_KEY(&info, PMIX_ALLOC_REQ_ID)) {
            if (auto text = value_string(info.value)) out.req_id = *text;
        }
    }
    return {};
}

// Master, progress thread: the reason of each requester's last refusal, until it asks.
std::map<std::string, std::string>& refusals() { return host().allocation_refusals; }

std::string key_of(const pmix_proc_t& p) { return fmt::format("{}:{}", p.nspace, p.rank); }

// Phase one, on PMIx's terms: the status, and the ids to match the later event by.
void answer_call(pmix_info_cbfunc_t cbfunc, void* cbdata, pmix_status_t status, const std::string& alloc_id,
                 const std::string& req_id, const std::string& message)
{
    if (!cbfunc) return;
    auto* info = new InfoArray;
    if (!alloc_id.empty()) info->add_string(PMIX_ALLOC_ID, alloc_id);
    if (!req_id.empty()) info->add_string(PMIX_ALLOC_REQ_ID, req_id);
    if (!message.empty()) info->add_string(PMIX_EVENT_TEXT_MESSAGE, message);
    cbfunc(status, info->data(), info->size(), cbdata, [](void* arg) { delete static_cast<InfoArray*>(arg); }, info);
}

void notify_locally(const AllocationOutcome& o)
{
#ifdef PRTE_HAVE_PMIX_DVM_EVENTS
    auto info = std::make_unique<InfoArray>();
    info->add_string(PMIX_ALLOC_ID, o.alloc_id);
    if (!o.req_id.empty()) info->add_string(PMIX_ALLOC_REQ_ID, o.req_id);
    if (!o.success) {
        info->add_status(kAllocationCause, o.cause);
        if (!o.message.empty()) info->add_string(PMIX_EVENT_TEXT_MESSAGE, o.message);
    }
    info->add_proc_array(PMIX_EVENT_CUSTOM_RANGE, &o.requester, 1);
    info->add_bool(PMIX_EVENT_NON_DEFAULT, true);
    pmix_status_t code = o.success ? PMIX_DVM_IS_READY : PMIX_ERR_DVM_MOD;
    verbose()(2, "allocation {}: {} to {}", o.alloc_id, o.success ? "PMIX_DVM_IS_READY" : "PMIX_ERR_DVM_MOD",
              describe(o.requester));
    notify_from_dvm(code, PMIX_RANGE_CUSTOM, std::move(info),
                    fmt::format("{} of allocation {}", describe(o.requester), o.alloc_id));
#else
    verbose()(2, "allocation {} {}: no completion event (this PMIx defines neither PMIX_DVM_IS_READY nor "
                 "PMIX_ERR_DVM_MOD; PMIX_QUERY_ALLOC_STATUS says it)",
              o.alloc_id, o.success ? "complete" : "failed");
#endif
}

// Master: a daemon relays a process's request.
void on_request(Rank origin, rml::Payload&& payload)
{
    wire::AllocationRequest m;
    Status st = wire::decode(payload, m);
    if (!st || m.directive > static_cast<uint8_t>(AllocDirective::cancel)) {
        output::warning("dropped an allocation request from daemon {}: {}", origin,
                        st ? "unknown directive" : st.message());
        return;
    }
    const uint64_t id = m.id;
    runtime::AllocationRequest request;
    pmix_proc_t requester;
    PMIX_LOAD_PROCID(&requester, m.nspace.c_str(), m.rank);
    request.requester = requester;
    request.requester_daemon = origin;
    request.directive = static_cast<AllocDirective>(m.directive);
    request.node_list = std::move(m.node_list);
    request.num_nodes = m.num_nodes;
    request.alloc_id = m.alloc_id;
    request.req_id = m.req_id;
    verbose()(2, "daemon {} relays an allocation request from {}", origin, describe(requester));
    runtime::Runtime::instance().campaigns().submit(std::move(request), [origin, id](const Status& st, const std::string& granted) {
        wire::AllocationReply reply{id, to_pmix_status(st), granted, st ? std::string() : st.message()};
        if (Status s = messenger().send(origin, rml::tag::alloc_reply, wire::encode(reply)); !s) {
            output::warning("cannot answer daemon {}'s allocation request: {}", origin, s.message());
        }
    });
}

// Daemon: the master's phase-one answer.
void on_reply(Rank origin, rml::Payload&& payload)
{
    wire::AllocationReply reply;
    if (Status st = wire::decode(payload, reply); !st) {
        output::warning("dropped an allocation reply from the master: {}", st.message());
        return;
    }
    answer_relayed(reply.id, {reply.status, reply.alloc_id, reply.message}, "allocation reply", origin);
}

// Daemon: the completion event for a process of this node.
void on_event(Rank, rml::Payload&& payload)
{
    wire::AllocationEvent event;
    if (Status st = wire::decode(payload, event); !st) {
        output::warning("dropped an allocation event from the master: {}", st.message());
        return;
    }
    AllocationOutcome o;
    o.requester.rank = event.rank;
    o.alloc_id = std::move(event.alloc_id);
    o.req_id = std::move(event.req_id);
    o.success = event.success;
    o.cause = event.cause;
    o.message = std::move(event.message);
    PMIX_LOAD_NSPACE(o.requester.nspace, event.nspace.c_str());
    notify_locally(o);
}

}  // namespace

pmix_status_t allocate(const pmix_proc_t* client, pmix_alloc_directive_t directive, const pmix_info_t data[],
                       size_t ndata, pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    runtime::AllocationRequest request;
    Status st = translate(directive, data, ndata, request);
    if (client) request.requester = *client;
    std::string from = client ? describe(*client) : std::string("?");
    if (!st) {
        verbose()(1, "allocation request from {} refused: {}", from, st.message());
        return to_pmix_status(st);
    }
    std::string req_id = request.req_id;
    if (is_master()) {
        post([request = std::move(request), req_id, cbfunc, cbdata, from]() mutable {
            std::optional<pmix_proc_t> requester = request.requester;
            runtime::Runtime::instance().campaigns().submit(std::move(request), [req_id, cbfunc, cbdata, from, requester](const Status& s,
                                                                                         const std::string& alloc_id) {
                if (!s) {
                    verbose()(1, "allocation request from {} refused: {}", from, s.message());
                    if (refusals().size() > 1024) refusals().clear();  // bounded: a tool that never asks
                    if (requester) refusals()[key_of(*requester)] = s.message();
                }
                answer_call(cbfunc, cbdata, to_pmix_status(s), alloc_id, req_id, s ? std::string() : s.message());
            });
        });
        return PMIX_SUCCESS;
    }
    post([request = std::move(request), req_id, cbfunc, cbdata, from] {
        pmix_proc_t requester{};
        if (request.requester) requester = *request.requester;
        auto send = [&](uint64_t id) {
            rml::Payload m = wire::encode(wire::AllocationRequest{id, requester.nspace, requester.rank,
                                                                 static_cast<uint8_t>(request.directive),
                                                                 request.node_list, request.num_nodes,
                                                                 request.alloc_id, request.req_id});
            return !m.empty() ? messenger().send(0, rml::tag::alloc_request, std::move(m))
                              : Status(Errc::internal, "cannot pack the relayed request");
        };
        auto answer = [cbfunc, cbdata, req_id](const RelayAnswer& a) {
            answer_call(cbfunc, cbdata, a.status, a.value, req_id, a.message);
        };
        if (Status sent = relays().relay(requester, route_to_master(), send, answer); !sent) {
            output::error("allocation request from {} refused: cannot reach the master: {}", from, sent.message());
            answer({PMIX_ERR_UNREACH, {}, sent.message()});
            return;
        }
        verbose()(2, "allocation request from {} relayed to the master", from);
    });
    return PMIX_SUCCESS;
}

std::optional<std::string> take_refusal(const pmix_proc_t& requester)
{
    auto it = refusals().find(key_of(requester));
    if (it == refusals().end()) return std::nullopt;
    std::string why = std::move(it->second);
    refusals().erase(it);
    return why;
}

void enable_allocation_relay()
{
    if (is_master()) {
        messenger().register_handler(rml::tag::alloc_request, on_request);
    } else {
        messenger().register_handler(rml::tag::alloc_reply, on_reply);
        messenger().register_handler(rml::tag::alloc_event, on_event);
    }
}

}  // namespace prte::pmix::detail

namespace prte::pmix {

void notify_allocation_outcome(const AllocationOutcome& o)
{
    if (o.requester_daemon == 0 || o.requester_daemon == runtime::Runtime::instance().identity().rank) {
        if (detail::server_running()) detail::notify_locally(o);
        return;
    }
    wire::AllocationEvent event{o.requester.nspace, o.requester.rank, o.alloc_id, o.req_id, o.success, o.cause, o.message};
    if (Status st = detail::messenger().send(o.requester_daemon, rml::tag::alloc_event, wire::encode(event)); !st) {
        output::warning("cannot tell {} how allocation {} ended: {}", describe(o.requester), o.alloc_id,
                        st.message());
    }
}

}  // namespace prte::pmix
