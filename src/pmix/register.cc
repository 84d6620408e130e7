// Registering namespaces with the local PMIx server: what a client reads at PMIx_Init and after
// (job size, its ranks, who shares its node, where its apps run), then each local process as a
// client, so that its connection is accepted. Also the child's environment (setup_fork).
//
// What is registered, and why (Open MPI 4.1 and plain PMIx clients read these):
//   job level   PMIX_JOBID, PMIX_JOB_SIZE, PMIX_UNIV_SIZE, PMIX_MAX_PROCS, PMIX_NUM_NODES,
//               PMIX_JOB_NUM_APPS, PMIX_NODE_MAP / PMIX_PROC_MAP (PMIx regexes: who is where),
//               PMIX_TMPDIR / PMIX_NSDIR, PMIX_SPAWNED + PMIX_PARENT_ID when a process (not a
//               tool) asked for the job, and this node's PMIX_LOCAL_PEERS, PMIX_LOCALLDR,
//               PMIX_LOCAL_SIZE, PMIX_NODE_SIZE: a client asks for those with the wildcard rank
//               and no node qualifier, and every client of this server is on this node.
//   per app     PMIX_APP_INFO_ARRAY: PMIX_APPNUM, PMIX_APP_SIZE, PMIX_APPLDR, PMIX_WDIR, PMIX_APP_ARGV
//   per node    PMIX_NODE_INFO_ARRAY: PMIX_HOSTNAME, PMIX_NODEID, PMIX_LOCAL_SIZE, PMIX_NODE_SIZE,
//               PMIX_LOCAL_PEERS, PMIX_LOCALLDR, and PMIX_NODE_OVERSUBSCRIBED (true) for this node
//               when the job's launch puts more processes of all jobs there than it has slots
//               (also at job level, where Open MPI 5 asks for it with the wildcard rank)
//   per process PMIX_PROC_INFO_ARRAY: PMIX_RANK, PMIX_LOCAL_RANK, PMIX_NODE_RANK, PMIX_APPNUM,
//               PMIX_GLOBAL_RANK, PMIX_APP_RANK, PMIX_HOSTNAME, PMIX_NODEID, and for a job a
//               process spawned PMIX_PARENT_ID again (see below)
//               and for each process this node hosts that is bound: PMIX_CPUSET (its CPUs, as
//               the master's placement chose them) and PMIX_LOCALITY_STRING (PMIx's own reading
//               of that set on this node's topology, which Open MPI compares between peers)
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "pmix/server.h"
#include "runtime/runtime.h"
#include "util/strings.h"

namespace prte::pmix {
namespace {

using detail::verbose;

// PMIX_CPUSET and PMIX_LOCALITY_STRING of a bound process on this node. A locality PMIx cannot
// work out is left out (PMIx then treats the process as unbound), with a verbose line.
void add_locality(InfoArray& pi, const runtime::Proc& proc)
{
    if (proc.cpuset.empty()) return;
    pi.add_string(PMIX_CPUSET, proc.cpuset);
    pmix_cpuset_t cpuset;
    PMIX_CPUSET_CONSTRUCT(&cpuset);
    hwloc_bitmap_t bitmap = hwloc_bitmap_alloc();
    char* locality = nullptr;
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    if (hwloc_bitmap_list_sscanf(bitmap, proc.cpuset.c_str()) == 0) {
        cpuset.source = const_cast<char*>("hwloc");
        cpuset.bitmap = bitmap;
        rc = PMIx_server_generate_locality_string(&cpuset, &locality);
    }
    hwloc_bitmap_free(bitmap);
    if (rc == PMIX_SUCCESS && locality) {
        pi.add_string(PMIX_LOCALITY_STRING, locality);
    } else {
        verbose()(2, "rank {}: no locality string for cpus {}: {}", proc.rank, proc.cpuset, PMIx_Error_string(rc));
    }
    free(locality);
}
using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

using Completion = std::function<void(const Status&)>;

// Everything one registration keeps alive until PMIx has finished with it.
struct Registration {
    runtime::JobPtr job;
    std::string nspace;
    InfoArray info;
    std::vector<pmix_proc_t> clients;
    size_t pending_clients = 0;
    pmix_status_t first_error = PMIX_SUCCESS;
    Completion finished;  // runs on PMIx's thread, or on the caller's when PMIx refused at once
};

std::string join_ranks(const std::vector<Rank>& ranks, char separator)
{
    std::string out;
    for (Rank r : ranks) {
        if (!out.empty()) out += separator;
        out += std::to_string(r);
    }
    return out;
}

std::string ns_dir(const std::string& nspace)
{
    return (std::filesystem::path(rt().identity().session_dir) / nspace).string();
}

// The node index in the pool is stable for the life of the DVM (the pool never drops a node), so
// it serves as PMIX_NODEID.
std::map<const runtime::Node*, uint32_t> node_ids()
{
    std::map<const runtime::Node*, uint32_t> ids;
    const runtime::NodePool& pool = rt().pool();
    for (size_t i = 0; i < pool.size(); ++i) ids[&pool.at(i)] = static_cast<uint32_t>(i);
    return ids;
}

Status add_regex(InfoArray& info, const char* key, const std::string& input, bool ppn)
{
    char* regex = nullptr;
    pmix_status_t rc = ppn ? PMIx_generate_ppn(input.c_str(), &regex) : PMIx_generate_regex(input.c_str(), &regex);
    if (rc != PMIX_SUCCESS || !regex) {
        return {Errc::internal, fmt::format("cannot build the PMIx {} from '{}': {}", ppn ? "process map" : "node map",
                                            input, PMIx_Error_string(rc))};
    }
    // PMIX_REGEX: the value may be a compressed blob rather than text; PMIx copies it by its prefix.
    info.add(key, regex, PMIX_REGEX);
    free(regex);
    return {};
}

// Where the job's processes are: nodes in order of their lowest rank, and the ranks on each.
struct Layout {
    std::vector<const runtime::Node*> nodes;
    std::map<const runtime::Node*, std::vector<Rank>> ranks;
};

Layout layout_of(const runtime::Job& job)
{
    Layout layout;
    for (const auto& proc : job.procs) {
        if (!proc->node) continue;
        auto& ranks = layout.ranks[proc->node];
        if (ranks.empty()) layout.nodes.push_back(proc->node);
        ranks.push_back(proc->rank);
    }
    return layout;
}

void add_node_keys(InfoArray& info, const runtime::Node& node, const std::vector<Rank>& ranks)
{
    info.add_uint32(PMIX_LOCAL_SIZE, static_cast<uint32_t>(ranks.size()));
    info.add_uint32(PMIX_NODE_SIZE, static_cast<uint32_t>(std::max<size_t>(node.num_procs, ranks.size())));
    info.add_string(PMIX_LOCAL_PEERS, join_ranks(ranks, ','));
    info.add_rank(PMIX_LOCALLDR, ranks.front());
}

Status build_job_info(const runtime::Job& job, InfoArray& info, std::vector<pmix_proc_t>& clients)
{
    const runtime::Identity& me = rt().identity();
    const Layout layout = layout_of(job);
    const auto ids = node_ids();
    const uint32_t size = static_cast<uint32_t>(job.num_procs());
    const uint32_t universe = runtime::universe_size(std::as_const(rt().pool()), size);

    info.add_string(PMIX_JOBID, job.nspace);
    info.add_uint32(PMIX_JOB_SIZE, size);
    info.add_uint32(PMIX_UNIV_SIZE, universe);
    info.add_uint32(PMIX_MAX_PROCS, universe);
    info.add_uint32(PMIX_NUM_NODES, static_cast<uint32_t>(layout.nodes.size()));
    info.add_uint32(PMIX_JOB_NUM_APPS, static_cast<uint32_t>(job.apps.size()));
    if (!me.session_dir.empty()) {
        info.add_string(PMIX_TMPDIR, me.session_dir);
        info.add_string(PMIX_NSDIR, ns_dir(job.nspace));
    }
    // A job asked for by a process of another job (MPI_Comm_spawn) has a parent to connect back
    // to; a job asked for by a tool (prun) has none.
    const bool spawned_by_job = job.originator && rt().jobs().find(job.originator->nspace);
    if (spawned_by_job) {
        info.add_bool(PMIX_SPAWNED, true);
        info.add_proc(PMIX_PARENT_ID, *job.originator);
    }

    if (!layout.nodes.empty()) {
        std::vector<std::string> names;
        std::vector<std::string> per_node;
        for (const runtime::Node* node : layout.nodes) {
            names.push_back(node->name);
            per_node.push_back(join_ranks(layout.ranks.at(node), ','));
        }
        if (Status st = add_regex(info, PMIX_NODE_MAP, util::join(names, ","), false); !st) return st;
        if (Status st = add_regex(info, PMIX_PROC_MAP, util::join(per_node, ";"), true); !st) return st;
    }

    // This node's share, at job level (see the top of the file).
    for (const runtime::Node* node : layout.nodes) {
        if (node->daemon != me.rank) continue;
        add_node_keys(info, *node, layout.ranks.at(node));
        if (rt().jobs().oversubscribes(job, *node)) info.add_bool(PMIX_NODE_OVERSUBSCRIBED, true);
    }

    // Apps: size, leader (lowest rank) and each process's rank within its app.
    std::vector<uint32_t> app_size(job.apps.size(), 0);
    std::vector<Rank> app_leader(job.apps.size(), PMIX_RANK_INVALID);
    std::vector<Rank> app_rank(job.num_procs(), 0);
    for (const auto& proc : job.procs) {
        size_t a = static_cast<size_t>(proc->app_index);
        if (a >= job.apps.size()) continue;
        if (app_leader[a] == PMIX_RANK_INVALID) app_leader[a] = proc->rank;
        app_rank[proc->rank] = app_size[a]++;
    }
    for (size_t a = 0; a < job.apps.size(); ++a) {
        const runtime::AppContext& app = job.apps[a];
        InfoArray ai;
        ai.add_uint32(PMIX_APPNUM, static_cast<uint32_t>(a));
        ai.add_uint32(PMIX_APP_SIZE, app_size[a]);
        if (app_leader[a] != PMIX_RANK_INVALID) ai.add_rank(PMIX_APPLDR, app_leader[a]);
        if (!app.working_dir.empty()) ai.add_string(PMIX_WDIR, app.working_dir);
        ai.add_string(PMIX_APP_ARGV, util::join(app.argv.empty() ? std::vector<std::string>{app.executable} : app.argv, " "));
        info.add_info_array(PMIX_APP_INFO_ARRAY, std::move(ai));
    }

    for (const runtime::Node* node : layout.nodes) {
        InfoArray ni;
        ni.add_string(PMIX_HOSTNAME, node->name);
        ni.add_uint32(PMIX_NODEID, ids.at(node));
        add_node_keys(ni, *node, layout.ranks.at(node));
        // Only this node's daemon knows what else runs there.
        if (node->daemon == me.rank && rt().jobs().oversubscribes(job, *node)) {
            ni.add_bool(PMIX_NODE_OVERSUBSCRIBED, true);
        }
        info.add_info_array(PMIX_NODE_INFO_ARRAY, std::move(ni));
    }

    for (const auto& proc : job.procs) {
        InfoArray pi;
        pi.add_rank(PMIX_RANK, proc->rank);
        pi.add_uint16(PMIX_LOCAL_RANK, static_cast<uint16_t>(proc->local_rank));
        pi.add_uint16(PMIX_NODE_RANK, static_cast<uint16_t>(proc->node_rank));
        pi.add_uint32(PMIX_APPNUM, static_cast<uint32_t>(proc->app_index));
        pi.add_rank(PMIX_GLOBAL_RANK, proc->rank);
        pi.add_rank(PMIX_APP_RANK, app_rank[proc->rank]);
        // Also per process: PMIx 4.2.2 answers PMIx_Get(&me, PMIX_PARENT_ID) - as OpenPMIx's own
        // spawn example asks - only from the process's data, not from the job's.
        if (spawned_by_job) pi.add_proc(PMIX_PARENT_ID, *job.originator);
        if (proc->node) {
            pi.add_string(PMIX_HOSTNAME, proc->node->name);
            pi.add_uint32(PMIX_NODEID, ids.at(proc->node));
            if (proc->node->daemon == me.rank) {
                add_locality(pi, *proc);
                pmix_proc_t client;
                PMIX_LOAD_PROCID(&client, job.nspace.c_str(), proc->rank);
                clients.push_back(client);
            }
        }
        info.add_info_array(PMIX_PROC_INFO_ARRAY, std::move(pi));
    }
    return {};
}

void finish(Registration* reg, pmix_status_t rc)
{
    Status st;
    if (rc != PMIX_SUCCESS) {
        st = {Errc::internal, fmt::format("cannot register job {} with the PMIx server: {}", reg->nspace,
                                          PMIx_Error_string(rc))};
    }
    verbose()(rc == PMIX_SUCCESS ? 2 : 1, "job {} {}: {} local client(s)", reg->nspace,
              rc == PMIX_SUCCESS ? "registered" : "NOT registered", reg->clients.size());
    Completion finished = std::move(reg->finished);
    delete reg;
    finished(st);
}

void client_registered(pmix_status_t status, void* cbdata)
{
    auto* reg = static_cast<Registration*>(cbdata);
    if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED && reg->first_error == PMIX_SUCCESS) {
        reg->first_error = status;
    }
    if (--reg->pending_clients == 0) finish(reg, reg->first_error);
}

// After the namespace: a client's connection is accepted only once it is registered.
void nspace_registered(pmix_status_t status, void* cbdata)
{
    auto* reg = static_cast<Registration*>(cbdata);
    if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED) {
        finish(reg, status);
        return;
    }
    if (reg->clients.empty()) {
        finish(reg, PMIX_SUCCESS);
        return;
    }
    reg->pending_clients = reg->clients.size();
    for (const pmix_proc_t& client : reg->clients) {
        pmix_status_t rc = PMIx_server_register_client(&client, geteuid(), getegid(), nullptr, client_registered, reg);
        if (rc != PMIX_SUCCESS) client_registered(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, reg);
    }
}

// Builds on the calling thread (which must own the job), then registers asynchronously;
// `finished` runs once, on PMIx's thread (or at once if nothing could be started).
void start_registration(const runtime::JobPtr& job, Completion finished)
{
    if (!detail::server_running()) {
        finished({Errc::internal, fmt::format("cannot register job {}: the PMIx server is not running", job->nspace)});
        return;
    }
    auto* reg = new Registration;
    reg->job = job;
    reg->nspace = job->nspace;
    reg->finished = std::move(finished);
    if (Status st = build_job_info(*job, reg->info, reg->clients); !st) {
        Completion done = std::move(reg->finished);
        delete reg;
        done(st);
        return;
    }
    if (!rt().identity().session_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(ns_dir(job->nspace), ec);
    }
    verbose()(5, "registering job {}: {} info entries, {} of {} processes on this node", job->nspace,
              reg->info.size(), reg->clients.size(), job->num_procs());
    pmix_status_t rc = PMIx_server_register_nspace(reg->nspace.c_str(), static_cast<int>(reg->clients.size()),
                                                   reg->info.data(), reg->info.size(), nspace_registered, reg);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        nspace_registered(PMIX_SUCCESS, reg);
    } else if (rc != PMIX_SUCCESS) {
        finish(reg, rc);
    }
}

}  // namespace

void register_job(const runtime::JobPtr& job, std::function<void(const Status&)> done)
{
    start_registration(job, [done = std::move(done)](const Status& st) {
        detail::post([done, st] { done(st); });
    });
}

Status register_job(const runtime::JobPtr& job)
{
    if (rt().loop().on_owner_thread()) {
        return {Errc::internal, fmt::format("register_job({}) would block the progress thread; use the overload with "
                                            "a completion callback",
                                            job->nspace)};
    }
    auto result = std::make_shared<std::promise<Status>>();
    std::future<Status> outcome = result->get_future();
    start_registration(job, [result](const Status& st) { result->set_value(st); });
    return outcome.get();
}

void deregister_job(const runtime::JobPtr& job)
{
    if (!detail::server_running()) return;
    verbose()(2, "job {} deregistered", job->nspace);
    detail::forget_hold(job->nspace);
    detail::forget_flow(job->nspace);
    detail::forget_published(job->nspace);
    detail::forget_group_records(job->nspace);
    detail::forget_listed_groups(job->nspace);
    detail::forget_invitations(job->nspace);
    detail::forget_group_leaders(job->nspace);
    detail::forget_killed_job(job->nspace);
    prte_pmix422_deregister_nspace(job->nspace.c_str());
    if (!rt().identity().session_dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(ns_dir(job->nspace), ec);
    }
}

Status setup_fork(const runtime::JobPtr& job, runtime::Rank rank, std::vector<std::string>& env)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, job->nspace.c_str(), rank);
    char** penv = nullptr;
    pmix_status_t rc = PMIx_server_setup_fork(&proc, &penv);
    if (rc != PMIX_SUCCESS) {
        PMIX_ARGV_FREE(penv);
        return {Errc::internal,
                fmt::format("cannot prepare the PMIx environment of rank {} of job {}: {}", rank, job->nspace,
                            PMIx_Error_string(rc))};
    }
    for (char** e = penv; e && *e; ++e) env.emplace_back(*e);
    PMIX_ARGV_FREE(penv);
    return {};
}

namespace detail {

// The DVM's own namespace, so a tool asking about it (pps, pquery) gets sane answers: one daemon
// per node that has one. Registered at start-up, when only this daemon is known.
void register_dvm_nspace()
{
    const runtime::Identity& me = rt().identity();
    uint32_t daemons = 0;
    for (const runtime::Node* node : std::as_const(rt().pool()).nodes()) daemons += node->daemon_launched ? 1 : 0;
    daemons = std::max<uint32_t>(daemons, 1);

    auto* info = new InfoArray;
    info->add_string(PMIX_JOBID, me.dvm_nspace);
    info->add_uint32(PMIX_JOB_SIZE, daemons);
    info->add_uint32(PMIX_MAX_PROCS, daemons);
    info->add_uint32(PMIX_NUM_NODES, daemons);
    info->add_uint32(PMIX_JOB_NUM_APPS, 1);
    if (!me.session_dir.empty()) info->add_string(PMIX_TMPDIR, me.session_dir);
    pmix_status_t rc = PMIx_server_register_nspace(
        me.dvm_nspace.c_str(), 0, info->data(), info->size(),
        [](pmix_status_t status, void* cbdata) {
            if (status != PMIX_SUCCESS) verbose()(1, "registering the DVM namespace: {}", PMIx_Error_string(status));
            delete static_cast<InfoArray*>(cbdata);
        },
        info);
    if (rc != PMIX_SUCCESS) {
        if (rc != PMIX_OPERATION_SUCCEEDED) verbose()(1, "registering the DVM namespace: {}", PMIx_Error_string(rc));
        delete info;
    }
}

}  // namespace detail
}  // namespace prte::pmix
