// PMIx events across the DVM: an event a process or tool raises reaches every process its range
// names, on any node, exactly once.
//
// PMIx's server delivers a client's event to the processes and tools of its own node that
// registered for it, then hands it to the host (notify_event). Unless its range stays on the node
// (PMIX_RANGE_PROC_LOCAL, PMIX_RANGE_LOCAL, or PMIx 5's PMIX_EVENT_STAYS_LOCAL), the daemon sends it to the
// master, which broadcasts it down the routing tree (grpcomm xcast); every other daemon's server
// notifies it with the original source and range, so each server applies the range (the source's
// namespace, the session, a PMIX_EVENT_CUSTOM_RANGE list) to its own processes. The origin daemon
// skips the broadcast: its processes already have the event. What a daemon notifies carries
// kRelayedKey, so that its own server handing it back to the host is not relayed a second time.
#include <pmix.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {

namespace wire {

rml::Payload encode(const Event& e)
{
    rml::Writer w;
    w.i32(e.code).str(e.source.nspace).u32(e.source.rank).u32(static_cast<uint32_t>(e.range)).u32(e.origin).bytes(e.info);
    return w.take();
}

Status decode(const rml::Payload& in, Event& e)
{
    rml::Reader r(in, "relayed event");
    e.code = r.i32();
    std::string nspace = r.str();
    e.source.rank = r.u32();
    e.range = static_cast<pmix_data_range_t>(r.u32());
    e.origin = r.u32();
    e.info = r.bytes();
    if (!r.ok() || nspace.size() > PMIX_MAX_NSLEN) {
        return Status(Errc::bad_param, r.ok() ? "the source namespace is too long" : r.error());
    }
    PMIX_LOAD_NSPACE(e.source.nspace, nspace.c_str());
    return {};
}

}  // namespace wire

namespace detail {
namespace {

using Event = wire::Event;

constexpr const char* kRelayedKey = "prte.event.relayed";
// PMIx's own mark on an event its server passed up to the host (not in the public headers): an
// event coming back down with it is taken as already processed, so it is not relayed.
constexpr const char* kPmixInternalKey = "pmix.srvr.internal.notify";
// More info entries than any event carries: a message claiming more is malformed.
constexpr size_t kMaxInfo = 4096;

rml::Messenger& messenger() { return rml::Messenger::instance(); }

bool stays_on_node(pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
#ifdef PMIX_EVENT_STAYS_LOCAL  // PMIx 5; 4.2.2 has no such attribute
    if (has_flag(info, ninfo, PMIX_EVENT_STAYS_LOCAL)) return true;
#endif
    return range == PMIX_RANGE_PROC_LOCAL || range == PMIX_RANGE_LOCAL || find_info(info, ninfo, kRelayedKey);
}

// The event's info plus kRelayedKey and, with `targets`, a custom range of those processes;
// nullptr when malformed. Free with PMIX_INFO_FREE.
pmix_info_t* unpack_info(const rml::Payload& packed, size_t& ninfo, const std::vector<pmix_proc_t>* targets)
{
    pmix_info_t* info = unpack_infos(packed, ninfo, targets ? 2 : 1, kMaxInfo);
    if (!info) return nullptr;
    size_t slot = ninfo - (targets ? 2 : 1);
    bool yes = true;
    PMIX_INFO_LOAD(&info[slot], kRelayedKey, &yes, PMIX_BOOL);
    if (targets) {
        pmix_data_array_t array{PMIX_PROC, targets->size(), const_cast<pmix_proc_t*>(targets->data())};
        PMIX_INFO_LOAD(&info[slot + 1], PMIX_EVENT_CUSTOM_RANGE, &array, PMIX_DATA_ARRAY);  // copied
    }
    return info;
}

struct Notified {
    pmix_info_t* info;
    size_t ninfo;
};

void release_notified(pmix_status_t, void* cbdata)
{
    auto* n = static_cast<Notified*>(cbdata);
    PMIX_INFO_FREE(n->info, n->ninfo);
    delete n;
}

// Hands an unpacked event to this node's PMIx server, which applies the range; `n` is released.
void notify_here(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range, Notified* n)
{
    pmix_status_t rc = PMIx_Notify_event(code, &source, range, n->info, n->ninfo, release_notified, n);
    if (rc != PMIX_SUCCESS) {
        if (rc != PMIX_OPERATION_SUCCEEDED) {
            verbose()(1, "cannot notify event {} from {}: {}", PMIx_Error_string(code), describe(source),
                      PMIx_Error_string(rc));
        }
        release_notified(rc, n);
    }
}

// Whether a PMIX_EVENT_CUSTOM_RANGE in `info` names a process of this node (a wildcard rank: any
// of its namespace's here).
bool custom_range_reaches_here(const pmix_info_t info[], size_t ninfo)
{
    const pmix_info_t* r = find_info(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
    if (!r) return true;  // no list: the server decides
    std::vector<pmix_proc_t> range = value_procs(r->value);
    return count_here(range.data(), range.size()) > 0;
}

// Every daemon, the master included: the broadcast event for this node's processes.
void on_broadcast(runtime::Rank, rml::Payload&& payload)
{
    Event e;
    if (Status st = wire::decode(payload, e); !st) {
        output::warning("dropped a relayed PMIx event: {}", st.message());
        return;
    }
    if (e.origin == messenger().self() || !server_running()) return;
    // PMIx 4.2.2's server hands a PMIX_RANGE_NAMESPACE event the host notifies to every process
    // of its node that registered, whatever its namespace: the namespace is named instead as a
    // custom range of its processes on this node.
    std::vector<pmix_proc_t> targets;
    pmix_data_range_t range = e.range;
    if (range == PMIX_RANGE_NAMESPACE) {
        targets = local_procs_of(e.source.nspace);
        if (targets.empty()) return;
        range = PMIX_RANGE_CUSTOM;
    }
    auto* n = new Notified{nullptr, 0};
    n->info = unpack_info(e.info, n->ninfo, targets.empty() ? nullptr : &targets);
    if (!n->info) {
        delete n;
        output::warning("dropped a relayed PMIx event {} from {}: its info does not unpack", PMIx_Error_string(e.code),
                        describe(e.source));
        return;
    }
    verbose()(5, "event {} from {} (range {}) relayed from daemon {}", PMIx_Error_string(e.code), describe(e.source),
              PMIx_Data_range_string(e.range), e.origin);
    observe_group_event(e.code, e.source, n->info, n->ninfo);
    // PMIx 4.2.2's server records a group for every PMIX_GROUP_CONSTRUCT_COMPLETE notified through
    // it, and only a destruct there forgets it: on a node without members the record stayed, and
    // a later construct of the same id there waited for ever (pmix422/groups.c). No process here
    // is in its range, so nobody here misses it.
    if (e.code == PMIX_GROUP_CONSTRUCT_COMPLETE && range == PMIX_RANGE_CUSTOM &&
        !custom_range_reaches_here(n->info, n->ninfo)) {
        verbose()(5, "event {} from {}: no process of its range on this node; not notified here",
                  PMIx_Error_string(e.code), describe(e.source));
        release_notified(PMIX_SUCCESS, n);
        return;
    }
    notify_here(e.code, e.source, range, n);
}

// Master: broadcast an event to every daemon.
void broadcast(rml::Payload payload)
{
    if (Status st = broadcast_to_daemons(rml::tag::event_broadcast, payload); !st) {
        output::warning("cannot broadcast a PMIx event to the daemons: {}", st.message());
    }
}

void on_relay(runtime::Rank origin, rml::Payload&& payload)
{
    Event e;
    if (Status st = wire::decode(payload, e); !st) {
        output::warning("dropped a PMIx event relayed by daemon {}: {}", origin, st.message());
        return;
    }
    broadcast(std::move(payload));
}

void send_to_every_daemon(const Event& e)
{
    if (Status st = to_every_daemon(rml::tag::event_relay, rml::tag::event_broadcast, wire::encode(e)); !st) {
        verbose()(1, "event {} from {} not relayed: {}", PMIx_Error_string(e.code), describe(e.source), st.message());
    }
}

}  // namespace

Status broadcast_to_daemons(rml::Tag tag, const rml::Payload& payload)
{
    grpcomm::Module* module = grpcomm::base::module();
    return module ? module->xcast(tag, payload, {}) : Status(Errc::not_supported, "no grpcomm module is selected");
}

// Only the master broadcasts, so another daemon sends the message to it first.
Status to_every_daemon(rml::Tag relay, rml::Tag all, rml::Payload payload)
{
    if (messenger().self() == 0) return broadcast_to_daemons(all, payload);
    return messenger().send(0, relay, std::move(payload));
}

bool relay_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range, const pmix_info_t info[],
                 size_t ninfo)
{
    if (stays_on_node(range, info, ninfo)) return false;
    // The DVM's own events (a job's end, an allocation's outcome) are already sent where they
    // belong by the runtime (events.cc, allocation.cc); relaying them too would deliver twice.
    if (source && PMIX_CHECK_NSPACE(source->nspace, server_proc().nspace)) return false;
    Event e;
    e.code = code;
    if (source) e.source = *source;
    e.range = range;
    if (!pack_infos(info, ninfo, e.info, kPmixInternalKey)) {
        verbose()(1, "event {} from {} not relayed: its info cannot be packed", PMIx_Error_string(code),
                  source ? describe(*source) : std::string("?"));
        return false;
    }
    post([e = std::move(e)]() mutable {
        e.origin = messenger().self();
        send_to_every_daemon(e);
    });
    return true;
}

bool raise_everywhere(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range, InfoArray& info)
{
    Event e;
    e.code = code;
    e.source = source;
    e.range = range;
    e.origin = messenger().self();
    if (!pack_infos(info.data(), info.size(), e.info, kPmixInternalKey)) return false;
    // This node's processes now; the others' through the broadcast, whose copy here is skipped
    // (its origin is this daemon). kRelayedKey keeps PMIx handing it back to be relayed again.
    auto* n = new Notified{nullptr, 0};
    n->info = unpack_info(e.info, n->ninfo, nullptr);
    if (n->info) {
        notify_here(code, source, range, n);
    } else {
        delete n;
    }
    send_to_every_daemon(e);
    return true;
}

void enable_event_relay()
{
    messenger().register_handler(rml::tag::event_broadcast, on_broadcast);
    if (runtime::Runtime::instance().identity().role == mca::ProcessRole::master) {
        messenger().register_handler(rml::tag::event_relay, on_relay);
    }
}

}  // namespace detail
}  // namespace prte::pmix
