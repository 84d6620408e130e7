// PMIx_Publish / PMIx_Lookup / PMIx_Unpublish: one store for the DVM, on the master.
//
// Open MPI 4.1 exchanges the port of MPI_Comm_spawn and MPI_Comm_accept/connect this way. A
// daemon's upcall sends the request to the master and answers PMIx with the master's reply (or
// with an error of its own when the way to the master is lost, the requester ends or the server
// stops first: pending_relays.h); the master's own upcalls use the store directly. A key is
// published once (a second publish of it is PMIX_ERR_DUPLICATE_KEY), and lives until its
// publisher unpublishes it or its job ends. A lookup with PMIX_WAIT waits until that many of the keys
// it names (an int; 0 or a bool true: all of them) are published, or the requester's job ends;
// without it, it answers with what is there
// (PMIX_ERR_NOT_FOUND when nothing is). Ranges and persistence other than "until the job ends"
// are not applied.
#include <pmix.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix::wire {
namespace {

// A namespace read off the wire into a pmix_proc_t, failing the reader when it does not fit.
void load_nspace(rml::Reader& r, const std::string& nspace, pmix_proc_t& proc)
{
    if (nspace.size() > PMIX_MAX_NSLEN) return r.fail("the namespace is longer than PMIX_MAX_NSLEN");
    PMIX_LOAD_NSPACE(proc.nspace, nspace.c_str());
}

}  // namespace

rml::Payload encode(const PublishRequest& p)
{
    rml::Writer w;
    w.u64(p.id);
    w.u8(p.op).str(p.requester.nspace).u32(p.requester.rank).bytes(p.info).strings(p.keys);
    return w.ok() ? w.take() : rml::Payload{};
}

Status decode(const rml::Payload& in, PublishRequest& p)
{
    rml::Reader r(in, "publish/lookup request");
    p.id = r.u64();
    p.op = r.u8();
    if (r.ok() && (p.op < 1 || p.op > 3)) r.fail("unknown operation");
    std::string nspace = r.str();
    p.requester.rank = r.u32();
    p.info = r.bytes();
    p.keys = r.strings();
    if (r.ok()) load_nspace(r, nspace, p.requester);
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const LookupEntries& e)
{
    rml::Writer w;
    w.u32(static_cast<uint32_t>(e.found.size()));
    for (const LookupEntry& f : e.found) w.str(f.publisher.nspace).u32(f.publisher.rank).bytes(f.entry);
    return w.take();
}

Status decode(const rml::Payload& in, LookupEntries& e)
{
    rml::Reader r(in, "publish/lookup reply entries");
    uint32_t count = r.u32();
    for (uint32_t i = 0; i < count && r.ok() && i < 4096; ++i) {
        LookupEntry f;
        std::string nspace = r.str();
        f.publisher.rank = r.u32();
        f.entry = r.bytes();
        if (r.ok()) load_nspace(r, nspace, f.publisher);
        if (r.ok()) e.found.push_back(std::move(f));
    }
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const PublishReply& p)
{
    rml::Writer w;
    w.u64(p.id).i32(p.status).bytes(p.entries);
    return w.take();
}

Status decode(const rml::Payload& in, PublishReply& p)
{
    rml::Reader r(in, "publish/lookup reply");
    p.id = r.u64();
    p.status = r.i32();
    p.entries = r.bytes();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace prte::pmix::wire

namespace prte::pmix::detail {
namespace {

using runtime::Rank;

rml::Messenger& messenger() { return rml::Messenger::instance(); }
bool is_master() { return runtime::Runtime::instance().identity().role == mca::ProcessRole::master; }

// The master's store, and the types of its requests (host_state.h).
using Store = HostState::Published;
using Op = Store::Op;
using Found = Store::Found;
using Answer = Store::Answer;
using Request = Store::Request;
using Entry = Store::Entry;
using Waiting = Store::Waiting;
Store& store() { return host().published; }

// Directives that come with the data in a publish and are not data themselves (PMIx 4.2 also
// passes entries with an empty key).
bool is_directive(const pmix_info_t& info)
{
    if (info.key[0] == '\0') return true;
    for (const char* key : {PMIX_RANGE, PMIX_PERSISTENCE, PMIX_TIMEOUT, PMIX_WAIT, PMIX_USERID, PMIX_GRPID}) {
        if (PMIX_CHECK_KEY(&info, key)) return true;
    }
    return false;
}

struct InfoHolder {
    pmix_info_t* info = nullptr;
    size_t n = 0;
    ~InfoHolder()
    {
        if (info) PMIX_INFO_FREE(info, n);
    }
};

void publish_here(const Request& r, const Answer& answer)
{
    InfoHolder data;
    data.info = unpack_infos(r.info, data.n);
    if (!data.info) return answer(PMIX_ERR_UNPACK_FAILURE, {});
    for (size_t i = 0; i < data.n; ++i) {
        if (!is_directive(data.info[i]) && store().entries.count(data.info[i].key)) {
            verbose()(1, "publish from {} refused: key {} is already published", describe(r.requester), data.info[i].key);
            return answer(PMIX_ERR_DUPLICATE_KEY, {});
        }
    }
    for (size_t i = 0; i < data.n; ++i) {
        if (is_directive(data.info[i])) continue;
        Entry e{r.requester, {}};
        if (!pack_infos(&data.info[i], 1, e.entry)) return answer(PMIX_ERR_PACK_FAILURE, {});
        verbose()(5, "{} publishes {}", describe(r.requester), data.info[i].key);
        store().entries[data.info[i].key] = std::move(e);
    }
    answer(PMIX_SUCCESS, {});
}

// How many of a lookup's `keys` must be published before it is answered: PMIX_WAIT is an int in the
// standard (that many keys, 0 meaning all of them), which is how upstream PMIx programs send it;
// a bool true (as some tools send it) means all. 0: answer at once.
size_t keys_to_wait_for(const pmix_info_t* directives, size_t n, size_t keys)
{
    const pmix_info_t* wait = directives ? find_info(directives, n, PMIX_WAIT) : nullptr;
    if (!wait) return 0;
    if (wait->value.type == PMIX_BOOL) return wait->value.data.flag ? keys : 0;
    std::optional<int64_t> count = value_integer(wait->value);
    if (!count || *count < 0) return keys;  // not a count we can read: the safe reading is "all"
    return *count == 0 ? keys : std::min(keys, static_cast<size_t>(*count));
}

// True when answered; false when it must wait for keys not yet published.
bool lookup_here(const Request& r, const Answer& answer, bool may_wait)
{
    InfoHolder directives;
    directives.info = unpack_infos(r.info, directives.n);
    size_t wanted = may_wait ? keys_to_wait_for(directives.info, directives.n, r.keys.size()) : 0;
    std::vector<Found> found;
    for (const std::string& key : r.keys) {
        auto it = store().entries.find(key);
        if (it != store().entries.end()) found.push_back({it->second.publisher, it->second.entry});
    }
    if (found.size() < wanted) return false;
    verbose()(5, "lookup from {}: {} of {} key(s) found", describe(r.requester), found.size(), r.keys.size());
    answer(found.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS, found);
    return true;
}

void unpublish_here(const Request& r, const Answer& answer)
{
    std::erase_if(store().entries, [&](const auto& kv) {
        bool named = r.keys.empty() || std::find(r.keys.begin(), r.keys.end(), kv.first) != r.keys.end();
        return named && PMIX_CHECK_PROCID(&kv.second.publisher, &r.requester);
    });
    answer(PMIX_SUCCESS, {});
}

void retry_waiting()
{
    std::vector<Waiting> still;
    std::vector<Waiting> pending = std::move(store().waiting);
    store().waiting.clear();
    for (Waiting& w : pending) {
        if (!lookup_here(w.request, w.answer, true)) still.push_back(std::move(w));
    }
    for (Waiting& w : still) store().waiting.push_back(std::move(w));
}

// Master, progress thread.
void serve(Request r, Answer answer)
{
    switch (r.op) {
    case Op::publish:
        publish_here(r, answer);
        retry_waiting();
        break;
    case Op::lookup:
        if (!lookup_here(r, answer, true)) {
            verbose()(5, "lookup from {} waits for its keys", describe(r.requester));
            store().waiting.push_back({std::move(r), std::move(answer)});
        }
        break;
    case Op::unpublish: unpublish_here(r, answer); break;
    }
}

// A lookup's entries, as one field of the master's reply.
rml::Payload encode_found(const std::vector<Found>& found)
{
    wire::LookupEntries entries;
    for (const Found& f : found) entries.found.push_back({f.publisher, f.entry});
    return wire::encode(entries);
}

bool decode_found(const std::vector<uint8_t>& bytes, std::vector<Found>& found)
{
    wire::LookupEntries entries;
    if (Status st = wire::decode(bytes, entries); !st) {
        output::warning("dropped a malformed publish/lookup reply: {}", st.message());
        return false;
    }
    for (wire::LookupEntry& e : entries.found) found.push_back({e.publisher, std::move(e.entry)});
    return true;
}

void on_request(Rank origin, rml::Payload&& payload)
{
    wire::PublishRequest m;
    if (Status st = wire::decode(payload, m); !st) {
        output::warning("dropped a publish/lookup request from daemon {}: {}", origin, st.message());
        return;
    }
    const uint64_t id = m.id;
    Request r;
    r.op = static_cast<Op>(m.op);
    r.requester = m.requester;
    r.info = std::move(m.info);
    r.keys = std::move(m.keys);
    serve(std::move(r), [origin, id](pmix_status_t status, const std::vector<Found>& found) {
        wire::PublishReply reply{id, status, encode_found(found)};
        if (Status st = messenger().send(origin, rml::tag::publish_reply, wire::encode(reply)); !st) {
            verbose()(1, "cannot answer daemon {}'s publish/lookup request: {}", origin, st.message());
        }
    });
}

// Daemon: the master's reply to a request relayed by submit().
void on_reply(Rank origin, rml::Payload&& payload)
{
    wire::PublishReply reply;
    if (Status st = wire::decode(payload, reply); !st) {
        output::warning("dropped a malformed publish/lookup reply: {}", st.message());
        reply.status = PMIX_ERR_UNPACK_FAILURE;
        reply.entries.clear();
    }
    answer_relayed(reply.id, {reply.status, {}, {}, std::move(reply.entries)}, "publish/lookup reply", origin);
}

// Any role, progress thread. A daemon relays the request to the master (its answer waits among
// relays(), as long as the master takes: a lookup with PMIX_WAIT until its keys are published).
void submit(Request r, Answer answer)
{
    if (is_master()) return serve(std::move(r), std::move(answer));
    auto send = [&r](uint64_t id) {
        rml::Payload m = wire::encode(wire::PublishRequest{id, static_cast<uint8_t>(r.op), r.requester, r.info, r.keys});
        return !m.empty() ? messenger().send(0, rml::tag::publish_request, std::move(m))
                          : Status(Errc::internal, "cannot pack the request");
    };
    // The master's reply carries its entries; an error of our own (the way to the master lost, the
    // requester ended, the server stopping) carries none.
    auto relayed = [answer](const RelayAnswer& a) {
        std::vector<Found> found;
        if (!a.data.empty() && !decode_found(a.data, found)) return answer(PMIX_ERR_UNPACK_FAILURE, {});
        answer(a.status, found);
    };
    if (Status st = relays().relay(r.requester, route_to_master(), send, relayed); !st) {
        verbose()(1, "publish/lookup from {} failed: cannot reach the master: {}", describe(r.requester), st.message());
        answer(PMIX_ERR_UNREACH, {});
    }
}

// The entries found, as PMIx's lookup callback wants them.
void answer_lookup(pmix_lookup_cbfunc_t cbfunc, void* cbdata, pmix_status_t status, const std::vector<Found>& found)
{
    std::vector<pmix_pdata_t> data(found.size());
    size_t n = 0;
    for (const Found& f : found) {
        InfoHolder entry;
        entry.info = unpack_infos(f.entry, entry.n);
        if (!entry.info || entry.n != 1) continue;
        PMIX_PDATA_CONSTRUCT(&data[n]);
        data[n].proc = f.publisher;
        PMIX_LOAD_KEY(data[n].key, entry.info[0].key);
        PMIx_Value_xfer(&data[n].value, &entry.info[0].value);
        ++n;
    }
    if (cbfunc) cbfunc(n == 0 && status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : status, n ? data.data() : nullptr, n, cbdata);
    for (size_t i = 0; i < n; ++i) PMIX_PDATA_DESTRUCT(&data[i]);
}

std::vector<std::string> copy_keys(char** keys)
{
    std::vector<std::string> out;
    for (char** k = keys; k && *k; ++k) out.emplace_back(*k);
    return out;
}

// Publish and unpublish answer with a status alone.
void submit_op(Request&& r, pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    post([r = std::move(r), cbfunc, cbdata]() mutable {
        submit(std::move(r), [cbfunc, cbdata](pmix_status_t st, const std::vector<Found>&) {
            if (cbfunc) cbfunc(st, cbdata);
        });
    });
}

}  // namespace

pmix_status_t publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                      void* cbdata)
{
    Request r;
    r.op = Op::publish;
    if (proc) r.requester = *proc;
    if (!pack_infos(info, ninfo, r.info)) return PMIX_ERR_PACK_FAILURE;
    submit_op(std::move(r), cbfunc, cbdata);
    return PMIX_SUCCESS;
}

pmix_status_t lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                     pmix_lookup_cbfunc_t cbfunc, void* cbdata)
{
    Request r;
    r.op = Op::lookup;
    if (proc) r.requester = *proc;
    r.keys = copy_keys(keys);
    if (r.keys.empty()) return PMIX_ERR_BAD_PARAM;
    if (!pack_infos(info, ninfo, r.info)) return PMIX_ERR_PACK_FAILURE;
    post([r = std::move(r), cbfunc, cbdata]() mutable {
        submit(std::move(r), [cbfunc, cbdata](pmix_status_t st, const std::vector<Found>& found) {
            answer_lookup(cbfunc, cbdata, st, found);
        });
    });
    return PMIX_SUCCESS;
}

pmix_status_t unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                        pmix_op_cbfunc_t cbfunc, void* cbdata)
{
    Request r;
    r.op = Op::unpublish;
    if (proc) r.requester = *proc;
    r.keys = copy_keys(keys);
    if (!pack_infos(info, ninfo, r.info)) return PMIX_ERR_PACK_FAILURE;
    submit_op(std::move(r), cbfunc, cbdata);
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail

namespace prte::pmix {

// A PMI name is a PMIx entry whose key is the service and whose value is the port as a string,
// which is what Open MPI's MPI_Publish_name publishes: each side finds the other's names.
void serve_names(const pmix_proc_t& requester, runtime::NameOp op, const std::string& service,
                 const std::string& port, std::function<void(pmix_status_t, const std::string&)> done)
{
    using detail::Found;
    using detail::Op;
    using detail::Request;
    if (service.empty() || service.size() > PMIX_MAX_KEYLEN) return done(PMIX_ERR_BAD_PARAM, {});
    Request r;
    r.requester = requester;
    if (op == runtime::NameOp::publish) {
        r.op = Op::publish;
        pmix_info_t entry;
        PMIX_INFO_LOAD(&entry, service.c_str(), port.c_str(), PMIX_STRING);
        bool packed = pack_infos(&entry, 1, r.info);
        PMIX_INFO_DESTRUCT(&entry);
        if (!packed) return done(PMIX_ERR_PACK_FAILURE, {});
    } else {
        r.op = op == runtime::NameOp::lookup ? Op::lookup : Op::unpublish;
        r.keys = {service};
    }
    const bool lookup = op == runtime::NameOp::lookup;
    detail::submit(std::move(r), [lookup, done = std::move(done)](pmix_status_t st, const std::vector<Found>& found) {
        if (!lookup) return done(st, {});  // publish and unpublish answer with a status alone
        if (st != PMIX_SUCCESS || found.empty()) return done(st == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : st, {});
        detail::InfoHolder entry;
        entry.info = unpack_infos(found.front().entry, entry.n);
        if (!entry.info || entry.n != 1) return done(PMIX_ERR_UNPACK_FAILURE, {});
        // A PMIx program may publish any type; a PMI process can only take a string.
        if (entry.info[0].value.type != PMIX_STRING || !entry.info[0].value.data.string) {
            return done(PMIX_ERR_TYPE_MISMATCH, {});
        }
        done(PMIX_SUCCESS, entry.info[0].value.data.string);
    });
}

}  // namespace prte::pmix

namespace prte::pmix::detail {

// Master: a job has ended: its entries go, and so do lookups of its processes still waiting
// (their PMIx servers are forgetting them).
void forget_published(const std::string& nspace)
{
    std::erase_if(store().entries, [&](const auto& kv) { return nspace == kv.second.publisher.nspace; });
    std::erase_if(store().waiting, [&](const Waiting& w) { return nspace == w.request.requester.nspace; });
    if (is_master()) {
        verbose()(5, "job {} ended: the store holds {} published key(s), {} waiting lookup(s)", nspace,
                  store().entries.size(), store().waiting.size());
    }
}

void enable_publish_relay()
{
    if (is_master()) {
        messenger().register_handler(rml::tag::publish_request, on_request);
    } else {
        messenger().register_handler(rml::tag::publish_reply, on_reply);
    }
}

}  // namespace prte::pmix::detail
