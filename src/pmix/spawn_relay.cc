// PMIx_Spawn from a process on a daemon's node, relayed to the master (see spawn.cc).
//
// The daemon sends the request as PMIx itself packs it (the job-level info and the apps), so the
// master translates it with the same code as a request from its own node and nothing of the
// request is lost in between; the reply carries the PMIx status and the new namespace.
#include <pmix.h>

#include <cstring>

#include <fmt/format.h>

#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/spawn_translate.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {

namespace wire {

rml::Payload encode(const SpawnRequest& s)
{
    rml::Writer w;
    w.u64(s.id).str(s.nspace).u32(s.rank).bytes(s.packed);
    return w.ok() ? w.take() : rml::Payload{};
}

Status decode(const rml::Payload& in, SpawnRequest& s)
{
    rml::Reader r(in, "spawn request");
    s.id = r.u64();
    s.nspace = r.str();
    s.rank = r.u32();
    s.packed = r.bytes();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const SpawnReply& s)
{
    rml::Writer w;
    w.u64(s.id).i32(s.status).str(s.nspace);
    return w.take();
}

Status decode(const rml::Payload& in, SpawnReply& s)
{
    rml::Reader r(in, "spawn reply");
    s.id = r.u64();
    s.status = r.i32();
    s.nspace = r.str();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

rml::Payload encode(const JobEnd& j)
{
    rml::Writer w;
    w.str(j.nspace).i32(j.exit_code).str(j.message).str(j.originator_nspace).u32(j.originator_rank);
    return w.take();
}

Status decode(const rml::Payload& in, JobEnd& j)
{
    rml::Reader r(in, "job end");
    j.nspace = r.str();
    j.exit_code = r.i32();
    j.message = r.str();
    j.originator_nspace = r.str();
    j.originator_rank = r.u32();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

namespace detail {
namespace {

using runtime::Rank;

rml::Messenger& messenger() { return rml::Messenger::instance(); }

// The request's info and apps in PMIx's own wire form.
bool pack_request(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps,
                  rml::Payload& out)
{
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    pmix_status_t rc = PMIx_Data_pack(nullptr, &buffer, &ninfo, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ninfo > 0) {
        rc = PMIx_Data_pack(nullptr, &buffer, const_cast<pmix_info_t*>(job_info), static_cast<int32_t>(ninfo),
                            PMIX_INFO);
    }
    if (rc == PMIX_SUCCESS) rc = PMIx_Data_pack(nullptr, &buffer, &napps, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && napps > 0) {
        rc = PMIx_Data_pack(nullptr, &buffer, const_cast<pmix_app_t*>(apps), static_cast<int32_t>(napps), PMIX_APP);
    }
    if (rc == PMIX_SUCCESS) {
        char* bytes = nullptr;
        size_t size = 0;
        PMIX_DATA_BUFFER_UNLOAD(&buffer, bytes, size);
        out.assign(reinterpret_cast<uint8_t*>(bytes), reinterpret_cast<uint8_t*>(bytes) + size);
        free(bytes);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    return rc == PMIX_SUCCESS;
}

// The unpacked request; owns the PMIx arrays.
struct Request {
    pmix_info_t* info = nullptr;
    size_t ninfo = 0;
    pmix_app_t* apps = nullptr;
    size_t napps = 0;
    ~Request()
    {
        if (info) PMIX_INFO_FREE(info, ninfo);
        if (apps) PMIX_APP_FREE(apps, napps);
    }
};

// A count beyond this is a corrupt message, not a request to allocate for.
constexpr size_t kMaxEntries = 1 << 16;

Status unpack_request(const rml::Payload& packed, Request& req)
{
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    // Load takes ownership of a malloc'd copy: the payload stays ours.
    char* copy = static_cast<char*>(malloc(packed.size() ? packed.size() : 1));
    if (!copy) return {Errc::out_of_resource, "out of memory"};
    memcpy(copy, packed.data(), packed.size());
    PMIX_DATA_BUFFER_LOAD(&buffer, copy, packed.size());
    auto fail = [&](const char* what, pmix_status_t rc) {
        PMIX_DATA_BUFFER_DESTRUCT(&buffer);
        return Status(Errc::bad_param, fmt::format("malformed spawn request ({}): {}", what, PMIx_Error_string(rc)));
    };
    int32_t one = 1;
    pmix_status_t rc = PMIx_Data_unpack(nullptr, &buffer, &req.ninfo, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || req.ninfo > kMaxEntries) return fail("info count", rc);
    if (req.ninfo > 0) {
        PMIX_INFO_CREATE(req.info, req.ninfo);
        int32_t n = static_cast<int32_t>(req.ninfo);
        rc = PMIx_Data_unpack(nullptr, &buffer, req.info, &n, PMIX_INFO);
        if (rc != PMIX_SUCCESS) return fail("info", rc);
    }
    one = 1;
    rc = PMIx_Data_unpack(nullptr, &buffer, &req.napps, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || req.napps == 0 || req.napps > kMaxEntries) return fail("app count", rc);
    PMIX_APP_CREATE(req.apps, req.napps);
    int32_t n = static_cast<int32_t>(req.napps);
    rc = PMIx_Data_unpack(nullptr, &buffer, req.apps, &n, PMIX_APP);
    if (rc != PMIX_SUCCESS) return fail("apps", rc);
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    return {};
}

void reply(Rank to, uint64_t id, pmix_status_t status, const std::string& nspace)
{
    if (Status st = messenger().send(to, rml::tag::spawn_reply, wire::encode(wire::SpawnReply{id, status, nspace})); !st) {
        output::warning("cannot answer daemon {}'s spawn request: {}", to, st.message());
    }
}

// Master: a daemon relays a process's request.
void on_request(Rank origin, rml::Payload&& payload)
{
    wire::SpawnRequest request;
    if (Status st = wire::decode(payload, request); !st) {
        output::warning("dropped a spawn request from daemon {}: {}", origin, st.message());
        return;
    }
    const uint64_t id = request.id;
    const std::string& nspace = request.nspace;
    const uint32_t rank = request.rank;
    const rml::Payload& packed = request.packed;
    pmix_proc_t requester;
    PMIX_LOAD_PROCID(&requester, nspace.c_str(), rank);
    Request req;
    runtime::Job draft;
    std::vector<std::string> notes;
    Status st = unpack_request(packed, req);
    if (st) st = translate_spawn(req.info, req.ninfo, req.apps, req.napps, draft, notes);
    if (!st) {
        output::error("spawn request from {} (via daemon {}) refused: {}", describe(requester), origin, st.message());
        reply(origin, id, to_pmix_status(st), {});
        return;
    }
    verbose()(2, "daemon {} relays a spawn request from {}", origin, describe(requester));
    submit_spawn(requester, draft, notes, [origin, id](const Status& s, const std::string& spawned) {
        reply(origin, id, spawn_status(s), spawned);
    });
}

// Daemon: the master's answer to a request this daemon relayed.
void on_reply(Rank origin, rml::Payload&& payload)
{
    wire::SpawnReply reply;
    if (Status st = wire::decode(payload, reply); !st) {
        output::warning("dropped a spawn reply from the master: {}", st.message());
        return;
    }
    answer_relayed(reply.id, {reply.status, reply.nspace, {}}, "spawn reply", origin);
}

// Daemon: a job spawned by one of this node's processes ended.
void on_job_end(Rank, rml::Payload&& payload)
{
    wire::JobEnd end;
    if (Status st = wire::decode(payload, end); !st) {
        output::warning("dropped a job-end notice from the master: {}", st.message());
        return;
    }
    pmix_proc_t originator;
    PMIX_LOAD_PROCID(&originator, end.originator_nspace.c_str(), end.originator_rank);
    notify_job_end_event(end.nspace, end.exit_code, end.message, originator);
}

}  // namespace

bool relay_job_end(const runtime::Job& job)
{
    if (!job.originator) return false;
    runtime::JobPtr parent = runtime::Runtime::instance().jobs().find(job.originator->nspace);
    runtime::Proc* proc = parent ? parent->proc(job.originator->rank) : nullptr;
    if (!proc || !proc->node || proc->node->daemon == 0 || proc->node->daemon == runtime::kInvalidRank) return false;
    wire::JobEnd end{job.nspace, job.exit_code, job.abort_message, job.originator->nspace, job.originator->rank};
    if (Status st = messenger().send(proc->node->daemon, rml::tag::job_end_event, wire::encode(end)); !st) {
        output::warning("cannot tell {} that job {} ended: {}", describe(*job.originator), job.nspace, st.message());
    }
    return true;
}

pmix_status_t relay_spawn(const pmix_proc_t& requester, const pmix_info_t job_info[], size_t ninfo,
                          const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata)
{
    rml::Payload packed;
    if (!pack_request(job_info, ninfo, apps, napps, packed)) {
        output::error("spawn request from {} refused: it cannot be packed for the master", describe(requester));
        return PMIX_ERR_PACK_FAILURE;
    }
    post([requester, packed = std::move(packed), cbfunc, cbdata] {
        auto answer = [cbfunc, cbdata](const RelayAnswer& a) {
            pmix_nspace_t name;
            PMIX_LOAD_NSPACE(name, a.value.c_str());
            if (cbfunc) cbfunc(a.status, name, cbdata);
        };
        auto send = [&](uint64_t id) {
            rml::Payload request = wire::encode(wire::SpawnRequest{id, requester.nspace, requester.rank, packed});
            return !request.empty() ? messenger().send(0, rml::tag::spawn_request, std::move(request))
                                    : Status(Errc::internal, "cannot pack the relayed request");
        };
        if (Status st = relays().relay(requester, route_to_master(), send, answer); !st) {
            output::error("spawn request from {} refused: cannot reach the master: {}", describe(requester),
                          st.message());
            answer({PMIX_ERR_UNREACH, {}, st.message()});
            return;
        }
        verbose()(2, "spawn request from {} relayed to the master", describe(requester));
    });
    return PMIX_SUCCESS;
}

void enable_spawn_relay()
{
    if (runtime::Runtime::instance().identity().role == mca::ProcessRole::master) {
        messenger().register_handler(rml::tag::spawn_request, on_request);
    } else {
        messenger().register_handler(rml::tag::spawn_reply, on_reply);
        messenger().register_handler(rml::tag::job_end_event, on_job_end);
    }
}

}  // namespace detail
}  // namespace prte::pmix
