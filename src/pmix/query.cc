// PMIx_Query_info from tools and clients: what jobs exist, how they are doing, and where their
// processes are (what `pps` lists). Each answered key comes back as one info of that key.
//
//   PMIX_QUERY_NAMESPACES        the DVM's namespace, then every job's, comma-separated
//   PMIX_QUERY_NAMESPACE_INFO    an array with one PMIX_JOB_INFO_ARRAY per job: its PMIX_NSPACE and
//                                PMIX_CMD_LINE (its first app's argv), as the standard and
//                                OpenPMIx's examples/tool.c read it
//   PMIX_SERVER_URI              (PMIX_HOSTNAME qualifier: a node) the URI of this node's PMIx
//                                server; another node's is not answered (the daemons do not tell
//                                the master theirs)
//   PMIX_QUERY_JOB_STATUS        (PMIX_NSPACE qualifier; default the requester's job) PMIX_SUCCESS
//                                while the job runs well, PMIX_ERR_JOB_FAILED_TO_LAUNCH if it
//                                could not start, PMIX_EVENT_JOB_END once it is ending otherwise
//   PMIX_QUERY_PROC_TABLE        (PMIX_NSPACE) array of pmix_proc_info_t for every process
//   PMIX_QUERY_LOCAL_PROC_TABLE  (PMIX_NSPACE) the same, for this node's processes
//   PMIX_QUERY_NUM_PSETS 0, PMIX_QUERY_PSET_NAMES "": no process sets are defined, so
//   PMIX_QUERY_PSET_MEMBERSHIP (PMIX_PSET_NAME qualifier) is known but never answered (NOT_FOUND)
//   PMIX_QUERY_NUM_GROUPS        the number of PMIx groups this server knows (groups/directory.cc:
//                                those with a member on its node)
//   PMIX_QUERY_GROUP_NAMES       their ids, an array of strings
//   PMIX_QUERY_GROUP_MEMBERSHIP  (PMIX_GROUP_ID qualifier) that group's members, an array of
//                                pmix_proc_t; a group it does not know is not answered
//   PMIX_QUERY_DEBUG_SUPPORT     the debugger attributes honoured (debugger.cc)
//   PMIX_QUERY_SPAWN_SUPPORT     the spawn directives we honour
//                                (with it, prte.job.state: the state's name, which shows a job
//                                parked while the DVM changes size: PRTE_JOB_STATE_WAITING_FOR_DAEMONS)
//   PMIX_QUERY_ALLOC_STATUS      (PMIX_ALLOC_ID qualifier: that allocation only) a line per
//                                allocation: its id ("initial" for the nodes the DVM started with),
//                                one of pending, ready, failed (": <cause>") or released for its
//                                latest size change, the RAS component, its live nodes and their
//                                slots in use, e.g. "alloc-1: ready; ras hosts; 2 node(s) up: a, b;
//                                8 slot(s), 3 in use"; an unknown id is not answered (NOT_FOUND).
//                                With PMIX_ALLOC_REQ_ID too, the phase is that request's outcome
//                                (the master's tools only: a daemon's relay carries no request)
//   prte.dvm.status[.json]       the DVM at a glance for pstat (runtime::Campaigns::dvm_status)
// The status is PMIX_SUCCESS when any key was answered, with one info per answered key: an
// OpenPMIx 4.2.2 tool drops every info under any other status (its src/common/pmix_query.c), so
// PMIX_QUERY_PARTIAL_SUCCESS would lose the answers. When none was: PMIX_ERR_NOT_SUPPORTED if no
// key is one of the above, PMIX_ERR_NOT_FOUND if some is but could not be answered (an unknown
// job, group or allocation).
#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "pmix/attributes.h"
#include "pmix/debugger.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "pmix/server.h"
#include "pmix/spawn_translate.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/strings.h"

namespace prte::pmix::wire {

rml::Payload encode(const AllocationStatusQuery& q)
{
    rml::Writer w;
    w.u64(q.id).u8(q.alloc_id ? 1 : 0).str(q.alloc_id.value_or(""));
    return w.take();
}

Status decode(const rml::Payload& in, AllocationStatusQuery& q)
{
    rml::Reader r(in, "allocation status query");
    q.id = r.u64();
    bool qualified = r.u8() != 0;
    std::string alloc_id = r.str();
    if (!r.ok()) return Status(Errc::bad_param, r.error());
    q.alloc_id = qualified ? std::optional<std::string>(std::move(alloc_id)) : std::nullopt;
    return {};
}

rml::Payload encode(const AllocationStatusAnswer& a)
{
    rml::Writer w;
    w.u64(a.id).u8(a.status ? 1 : 0).str(a.status.value_or(""));
    return w.take();
}

Status decode(const rml::Payload& in, AllocationStatusAnswer& a)
{
    rml::Reader r(in, "allocation status answer");
    a.id = r.u64();
    bool found = r.u8() != 0;
    std::string status = r.str();
    if (!r.ok()) return Status(Errc::bad_param, r.error());
    a.status = found ? std::optional<std::string>(std::move(status)) : std::nullopt;
    return {};
}

}  // namespace prte::pmix::wire

namespace prte::pmix::detail {
namespace {

runtime::Runtime& rt() { return runtime::Runtime::instance(); }

pmix_proc_state_t pmix_state(runtime::ProcState state)
{
    using runtime::ProcState;
    switch (state) {
    case ProcState::undef: return PMIX_PROC_STATE_UNDEF;
    case ProcState::init: return PMIX_PROC_STATE_PREPPED;
    case ProcState::restart: return PMIX_PROC_STATE_RESTART;
    case ProcState::terminate: return PMIX_PROC_STATE_TERMINATE;
    case ProcState::registered: return PMIX_PROC_STATE_CONNECTED;
    case ProcState::terminated: return PMIX_PROC_STATE_TERMINATED;
    case ProcState::killed_by_cmd: return PMIX_PROC_STATE_KILLED_BY_CMD;
    default: break;
    }
    int32_t n = static_cast<int32_t>(state);
    // The error states share PMIx's numbers up to FAILED_TO_LAUNCH; ours past it have no equal.
    if (n >= PMIX_PROC_STATE_ERROR) return n <= PMIX_PROC_STATE_FAILED_TO_LAUNCH ? static_cast<pmix_proc_state_t>(n)
                                                                                : PMIX_PROC_STATE_ERROR;
    return PMIX_PROC_STATE_RUNNING;  // running, output closed or reaped but not yet counted
}

pmix_status_t job_status(const runtime::Job& job)
{
    using runtime::JobState;
    switch (job.state) {
    case JobState::failed_to_start:
    case JobState::failed_to_launch:
    case JobState::never_launched:
    case JobState::alloc_failed:
    case JobState::map_failed:
    case JobState::cannot_launch: return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    default: break;
    }
    if (runtime::is_alive(job.state) && !job.aborting) return PMIX_SUCCESS;
    return PMIX_EVENT_JOB_END;
}

char* copy_text(const std::string& text) { return strdup(text.c_str()); }

pmix_data_array_t* proc_table(const runtime::Job& job, bool local_only)
{
    const runtime::Rank me = rt().identity().rank;
    std::vector<const runtime::Proc*> chosen;
    for (const auto& p : job.procs) {
        if (!local_only || (p->node && p->node->daemon == me)) chosen.push_back(p.get());
    }
    pmix_data_array_t* array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, chosen.size(), PMIX_PROC_INFO);
    auto* out = static_cast<pmix_proc_info_t*>(array->array);
    for (size_t i = 0; i < chosen.size(); ++i) {
        const runtime::Proc& p = *chosen[i];
        PMIX_LOAD_PROCID(&out[i].proc, job.nspace.c_str(), p.rank);
        out[i].hostname = copy_text(p.node ? p.node->name : std::string());
        size_t app = static_cast<size_t>(p.app_index);
        out[i].executable_name = copy_text(app < job.apps.size() ? job.apps[app].executable : std::string());
        out[i].pid = p.pid;
        out[i].exit_code = p.exit_code;
        out[i].state = pmix_state(p.state);
    }
    return array;
}

// The DVM's own "processes": one daemon per node that has one.
pmix_data_array_t* daemon_table(bool local_only)
{
    const runtime::Identity& id = rt().identity();
    std::vector<const runtime::Node*> nodes;
    for (const runtime::Node* n : std::as_const(rt().pool()).nodes()) {
        if (n->daemon_launched && (!local_only || n->daemon == id.rank)) nodes.push_back(n);
    }
    pmix_data_array_t* array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, nodes.size(), PMIX_PROC_INFO);
    auto* out = static_cast<pmix_proc_info_t*>(array->array);
    for (size_t i = 0; i < nodes.size(); ++i) {
        PMIX_LOAD_PROCID(&out[i].proc, id.dvm_nspace.c_str(), nodes[i]->daemon);
        out[i].hostname = copy_text(nodes[i]->name);
        bool self = nodes[i]->daemon == id.rank;
        out[i].executable_name = copy_text(nodes[i]->daemon == 0 ? "prte" : "prted");
        out[i].pid = self ? getpid() : 0;
        out[i].state = PMIX_PROC_STATE_RUNNING;
    }
    return array;
}

// What one pmix_query_t asks, copied off PMIx's thread.
struct Question {
    std::vector<std::string> keys;
    std::optional<std::string> nspace;  // PMIX_NSPACE or PMIX_PROCID qualifier
    std::optional<std::string> alloc_id;  // PMIX_ALLOC_ID qualifier
    std::optional<std::string> req_id;    // PMIX_ALLOC_REQ_ID qualifier
    std::optional<std::string> hostname;  // PMIX_HOSTNAME qualifier
    std::optional<std::string> group_id;  // PMIX_GROUP_ID qualifier
    std::optional<pmix_proc_t> proc;      // PMIX_PROCID qualifier (PMIx 4.2 names the server, not a
                                          // tool, as a tool query's requester)
    uint64_t acked_bytes = 0;           // kOutputAckedBytes qualifier (output acknowledgements)
};

uint64_t acked_qualifier(const pmix_query_t& q)
{
    for (size_t i = 0; q.qualifiers && i < q.nqual; ++i) {
        const pmix_info_t& info = q.qualifiers[i];
        if (PMIX_CHECK_KEY(&info, kOutputAckedBytes) && info.value.type == PMIX_UINT64) return info.value.data.uint64;
    }
    return 0;
}

std::optional<std::string> nspace_qualifier(const pmix_query_t& q)
{
    for (size_t i = 0; q.qualifiers && i < q.nqual; ++i) {
        const pmix_info_t& info = q.qualifiers[i];
        if (PMIX_CHECK_KEY(&info, PMIX_NSPACE)) return value_string(info.value);
        if (PMIX_CHECK_KEY(&info, PMIX_PROCID) && info.value.type == PMIX_PROC && info.value.data.proc) {
            return std::string(info.value.data.proc->nspace);
        }
    }
    return std::nullopt;
}

std::optional<std::string> alloc_id_qualifier(const pmix_query_t& q)
{
    for (size_t i = 0; q.qualifiers && i < q.nqual; ++i) {
        if (PMIX_CHECK_KEY(&q.qualifiers[i], PMIX_ALLOC_ID)) return value_string(q.qualifiers[i].value);
    }
    return std::nullopt;
}

// The allocations the pool's nodes came from, in pool order, then those an elastic size change
// left without nodes (a failed grow, a release of all), one line each (see the top).
std::optional<std::string> allocation_status(const std::optional<std::string>& only,
                                             const std::optional<std::string>& request = std::nullopt)
{
    struct Allocation {
        std::string ras;
        std::vector<std::string> up;
        int slots = 0;
        int in_use = 0;
        int departed = 0;
    };
    std::vector<std::pair<std::string, Allocation>> allocations;
    auto entry = [&](const std::string& id) -> Allocation& {
        auto it = std::find_if(allocations.begin(), allocations.end(), [&](const auto& a) { return a.first == id; });
        if (it == allocations.end()) it = allocations.insert(allocations.end(), {id, Allocation{}});
        return it->second;
    };
    for (const runtime::Node* node : rt().pool().nodes()) {
        // A node detached by a shrink or a failed grow belongs to no allocation until grown again.
        if (!node->daemon_launched && node->state == runtime::NodeState::down) continue;
        std::string id = node->alloc_id.empty() ? "initial" : node->alloc_id;
        if (only && *only != id) continue;
        Allocation& a = entry(id);
        if (a.ras.empty()) a.ras = node->ras_component;
        if (node->state == runtime::NodeState::not_included) continue;  // hosts a daemon, no processes
        if (node->state == runtime::NodeState::down) {
            a.departed++;
            continue;
        }
        a.up.push_back(node->name);
        a.slots += node->slots;
        a.in_use += node->slots_inuse;
    }
    const auto& records = rt().elastic().allocations();
    for (const auto& [id, record] : records) {
        if (!only || *only == id) entry(id);
    }
    if (allocations.empty()) return std::nullopt;
    std::string text;
    for (const auto& [id, a] : allocations) {
        // Exactly one phase word per line: what the allocation's latest size change came to.
        // Asked for one request's outcome (palloc): that request's, where the allocation's says
        // only what its latest size change came to.
        const runtime::AllocationRecord* record = nullptr;
        if (auto it = records.find(id); it != records.end()) record = &it->second;
        if (request && only) {
            const auto& requests = rt().elastic().requests();
            if (auto mine = requests.find(*request); mine != requests.end()) record = &mine->second;
        }
        std::string phase = "ready";
        if (record) {
            phase = runtime::to_string(record->phase);
            if (record->phase == runtime::AllocationPhase::failed) phase += ": " + record->cause;
        }
        if (!text.empty()) text += "\n";
        text += fmt::format("{}: {}; ras {}; {} node(s) up{}{}; {} slot(s), {} in use", id, phase,
                            a.ras.empty() ? "none" : a.ras, a.up.size(), a.up.empty() ? "" : ": ",
                            util::join(a.up, ", "), a.slots, a.in_use);
        if (a.departed > 0) text += fmt::format("; {} node(s) gone", a.departed);
    }
    return text;
}

std::string namespaces()
{
    std::string list = rt().identity().dvm_nspace;
    for (const runtime::JobPtr& job : rt().jobs().all()) {
        if (!job->is_daemon_job) list += "," + job->nspace;
    }
    return list;
}

InfoArray namespace_info()
{
    InfoArray all;
    for (const runtime::JobPtr& job : rt().jobs().all()) {
        if (job->is_daemon_job) continue;
        InfoArray one;
        one.add_string(PMIX_NSPACE, job->nspace);
        one.add_string(PMIX_CMD_LINE, job->apps.empty() ? std::string() : util::join(job->apps[0].argv, " "));
        all.add_info_array(PMIX_JOB_INFO_ARRAY, std::move(one));
    }
    return all;
}

// The keys the host answers: one handler each, found by key in one table (a key is added by
// writing its handler and its row). A handler answers into `results`, or returns false when it
// cannot (a job or an allocation it does not know, a URI of another node).
struct KeyContext {
    const std::string& key;
    const Question& q;
    const pmix_proc_t& requester;
    InfoArray& results;
};

bool answer_namespaces(const KeyContext& c)
{
    c.results.add_string(PMIX_QUERY_NAMESPACES, namespaces());
    return true;
}

bool answer_namespace_info(const KeyContext& c)
{
    c.results.add_info_array(PMIX_QUERY_NAMESPACE_INFO, namespace_info());
    return true;
}

bool answer_server_uri(const KeyContext& c)
{
    if (c.q.hostname && *c.q.hostname != rt().identity().node_name) return false;
    c.results.add_string(PMIX_SERVER_URI, prte::pmix::uri());
    return true;
}

// No process sets: there are none, which is an answer.
bool answer_num_psets(const KeyContext& c)
{
    c.results.add_size(PMIX_QUERY_NUM_PSETS, 0);
    return true;
}

bool answer_pset_names(const KeyContext& c)
{
    c.results.add_string(PMIX_QUERY_PSET_NAMES, "");
    return true;
}

// No process set is ever defined, so no name has members.
bool answer_pset_membership(const KeyContext&) { return false; }

bool answer_num_groups(const KeyContext& c)
{
    c.results.add_size(PMIX_QUERY_NUM_GROUPS, listed_group_names().size());
    return true;
}

bool answer_group_names(const KeyContext& c)
{
    std::vector<std::string> names = listed_group_names();
    pmix_data_array_t* array = nullptr;
    PMIX_DATA_ARRAY_CREATE(array, names.size(), PMIX_STRING);
    auto* out = static_cast<char**>(array->array);
    for (size_t i = 0; i < names.size(); ++i) out[i] = copy_text(names[i]);
    c.results.add_data_array(PMIX_QUERY_GROUP_NAMES, array);
    return true;
}

bool answer_group_membership(const KeyContext& c)
{
    if (!c.q.group_id) return false;
    std::optional<std::vector<pmix_proc_t>> members = listed_group_members(*c.q.group_id);
    if (!members) return false;
    c.results.add_proc_array(PMIX_QUERY_GROUP_MEMBERSHIP, members->data(), members->size());
    return true;
}

bool answer_debug_support(const KeyContext& c)
{
    c.results.add_string(PMIX_QUERY_DEBUG_SUPPORT, supported_debug_attributes());
    return true;
}

// prun acknowledging the output it took (flow control, output_flow.cc).
bool answer_output_ack(const KeyContext& c)
{
    if (!c.q.nspace) return false;
    output_acked(*c.q.nspace, c.q.acked_bytes);
    c.results.add_bool(kOutputAck, true);
    return true;
}

bool answer_spawn_support(const KeyContext& c)
{
    c.results.add_string(PMIX_QUERY_SPAWN_SUPPORT, supported_spawn_directives());
    return true;
}

// A job's status or its process table (all, or this node's); the DVM's own namespace answers with
// its daemons.
bool answer_job(const KeyContext& c)
{
    std::string nspace = c.q.nspace.value_or(c.requester.nspace);
    bool status = c.key == PMIX_QUERY_JOB_STATUS;
    bool local = c.key == PMIX_QUERY_LOCAL_PROC_TABLE;
    if (is_dvm_nspace(nspace)) {
        if (status) {
            c.results.add_status(PMIX_QUERY_JOB_STATUS, rt().shutting_down() ? PMIX_EVENT_JOB_END : PMIX_SUCCESS);
        } else {
            c.results.add_data_array(c.key.c_str(), daemon_table(local));
        }
        return true;
    }
    runtime::JobPtr job = rt().jobs().find(nspace);
    if (!job) return false;
    if (status) {
        c.results.add_status(PMIX_QUERY_JOB_STATUS, job_status(*job));
        c.results.add_string(kJobStateName, runtime::to_string(job->state));
    } else {
        c.results.add_data_array(c.key.c_str(), proc_table(*job, local));
    }
    return true;
}

bool answer_allocation_refusal(const KeyContext& c)
{
    std::optional<std::string> why = take_refusal(c.q.proc.value_or(c.requester));
    if (!why) return false;
    c.results.add_string(kAllocationRefusal, *why);
    return true;
}

// What pstat shows (elastic/dvm_status.cc), as a table or as JSON.
bool answer_dvm_status(const KeyContext& c)
{
    std::string status = rt().campaigns().dvm_status(c.key == kDvmStatusJson);
    if (status.empty()) return false;
    c.results.add_string(c.key.c_str(), status);
    return true;
}

bool answer_alloc_status(const KeyContext& c)
{
    std::optional<std::string> status = allocation_status(c.q.alloc_id, c.q.req_id);
    if (!status) return false;
    c.results.add_string(PMIX_QUERY_ALLOC_STATUS, *status);
    return true;
}

struct KeyHandler {
    const char* key;
    bool (*answer)(const KeyContext& context);
};

constexpr KeyHandler kKeyHandlers[] = {
    {PMIX_QUERY_NAMESPACES, answer_namespaces},
    {PMIX_QUERY_NAMESPACE_INFO, answer_namespace_info},
    {PMIX_SERVER_URI, answer_server_uri},
    {PMIX_QUERY_NUM_PSETS, answer_num_psets},
    {PMIX_QUERY_PSET_NAMES, answer_pset_names},
    {PMIX_QUERY_PSET_MEMBERSHIP, answer_pset_membership},
    {PMIX_QUERY_NUM_GROUPS, answer_num_groups},
    {PMIX_QUERY_GROUP_NAMES, answer_group_names},
    {PMIX_QUERY_GROUP_MEMBERSHIP, answer_group_membership},
    {PMIX_QUERY_DEBUG_SUPPORT, answer_debug_support},
    {kOutputAck, answer_output_ack},
    {PMIX_QUERY_SPAWN_SUPPORT, answer_spawn_support},
    {PMIX_QUERY_JOB_STATUS, answer_job},
    {PMIX_QUERY_PROC_TABLE, answer_job},
    {PMIX_QUERY_LOCAL_PROC_TABLE, answer_job},
    {kAllocationRefusal, answer_allocation_refusal},
    {kDvmStatus, answer_dvm_status},
    {kDvmStatusJson, answer_dvm_status},
    {PMIX_QUERY_ALLOC_STATUS, answer_alloc_status},
};

enum class Answer { answered, not_answered, unknown_key };

// Answers one key into `results`.
Answer answer_key(const std::string& key, const Question& q, const pmix_proc_t& requester, InfoArray& results)
{
    for (const KeyHandler& handler : kKeyHandlers) {
        if (key != handler.key) continue;
        return handler.answer({key, q, requester, results}) ? Answer::answered : Answer::not_answered;
    }
    return Answer::unknown_key;
}

void release_results(void* cbdata) { delete static_cast<InfoArray*>(cbdata); }

// Every answer to a query reaches PMIx through here: `results` (nullptr: none) go with it and are
// released by PMIx. On PMIx's own thread where its 4.2.2 needs that (pmix422/info_answers.c: its
// query callback packs the reply on the thread that calls it), else from this one.
void answer_query(pmix_info_cbfunc_t cbfunc, void* cbdata, pmix_status_t status, InfoArray* results)
{
    pmix_info_t* info = results ? results->data() : nullptr;
    const size_t ninfo = results ? results->size() : 0;
    pmix_release_cbfunc_t release = results ? release_results : nullptr;
    if (prte_pmix422_answer_info(status, info, ninfo, cbfunc, cbdata, release, results)) return;
    cbfunc(status, info, ninfo, cbdata, release, results);
}

}  // namespace

namespace {

// A daemon knows nothing of allocations: a PMIX_QUERY_ALLOC_STATUS from one of its processes is
// the master's to answer, and waits for it among the daemon's relays().

void answer_alloc_status(pmix_info_cbfunc_t cbfunc, void* cbdata, const std::optional<std::string>& status)
{
    if (!status) {
        answer_query(cbfunc, cbdata, PMIX_ERR_NOT_FOUND, nullptr);
        return;
    }
    auto* results = new InfoArray;
    results->add_string(PMIX_QUERY_ALLOC_STATUS, *status);
    answer_query(cbfunc, cbdata, PMIX_SUCCESS, results);
}

// Daemon: relays the query; false when the master cannot be reached.
bool relay_alloc_status(const pmix_proc_t& requester, const std::optional<std::string>& alloc_id,
                        pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    auto send = [&](uint64_t id) {
        return rml::Messenger::instance().send(0, rml::tag::alloc_query,
                                               wire::encode(wire::AllocationStatusQuery{id, alloc_id}));
    };
    auto answer = [cbfunc, cbdata](const RelayAnswer& a) {
        if (a.status == PMIX_SUCCESS) {
            answer_alloc_status(cbfunc, cbdata, a.value);
        } else {
            answer_query(cbfunc, cbdata, a.status, nullptr);
        }
    };
    return relays().relay(requester, route_to_master(), send, answer).ok();
}

void on_alloc_query(runtime::Rank origin, rml::Payload&& payload)
{
    wire::AllocationStatusQuery q;
    if (!wire::decode(payload, q)) return;
    const uint64_t id = q.id;
    wire::AllocationStatusAnswer answer{id, allocation_status(q.alloc_id)};
    if (Status st = rml::Messenger::instance().send(origin, rml::tag::alloc_query_reply, wire::encode(answer)); !st) {
        verbose()(1, "cannot answer daemon {}'s allocation status query {}: {}", origin, id, st.message());
    }
}

void on_alloc_query_reply(runtime::Rank origin, rml::Payload&& payload)
{
    wire::AllocationStatusAnswer a;
    if (!wire::decode(payload, a)) return;
    answer_relayed(a.id, {a.status ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, a.status.value_or(""), {}},
                   "allocation status answer", origin);
}

}  // namespace

void enable_alloc_status_relay()
{
    auto& m = rml::Messenger::instance();
    if (rt().identity().role == mca::ProcessRole::master) {
        m.register_handler(rml::tag::alloc_query, on_alloc_query);
    } else {
        m.register_handler(rml::tag::alloc_query_reply, on_alloc_query_reply);
    }
}

pmix_status_t query(pmix_proc_t* proc, pmix_query_t* queries, size_t nqueries, pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    pmix_proc_t requester = *proc;
    std::vector<Question> questions(nqueries);
    for (size_t n = 0; n < nqueries; ++n) {
        for (char** k = queries[n].keys; k && *k; ++k) questions[n].keys.emplace_back(*k);
        questions[n].nspace = nspace_qualifier(queries[n]);
        questions[n].alloc_id = alloc_id_qualifier(queries[n]);
        for (size_t i = 0; queries[n].qualifiers && i < queries[n].nqual; ++i) {
            const pmix_info_t& info = queries[n].qualifiers[i];
            if (PMIX_CHECK_KEY(&info, PMIX_PROCID) && info.value.type == PMIX_PROC && info.value.data.proc) {
                questions[n].proc = *info.value.data.proc;
            }
            if (PMIX_CHECK_KEY(&info, PMIX_HOSTNAME)) questions[n].hostname = value_string(info.value);
            if (PMIX_CHECK_KEY(&info, PMIX_GROUP_ID)) questions[n].group_id = value_string(info.value);
            if (PMIX_CHECK_KEY(&info, PMIX_ALLOC_REQ_ID)) questions[n].req_id = value_string(info.value);
        }
        questions[n].acked_bytes = acked_qualifier(queries[n]);
    }
    post([requester, questions = std::move(questions), cbfunc, cbdata] {
        if (rt().identity().role != mca::ProcessRole::master && questions.size() == 1 &&
            questions[0].keys.size() == 1 && questions[0].keys[0] == PMIX_QUERY_ALLOC_STATUS &&
            relay_alloc_status(requester, questions[0].alloc_id, cbfunc, cbdata)) {
            return;
        }
        auto* results = new InfoArray;
        size_t asked = 0;
        size_t answered = 0;
        size_t known = 0;
        for (const Question& q : questions) {
            for (const std::string& key : q.keys) {
                ++asked;
                Answer a = answer_key(key, q, requester, *results);
                if (a != Answer::unknown_key) ++known;
                if (a == Answer::answered) {
                    ++answered;
                } else {
                    verbose()(2, "query {} from {} not answered{}", key, requestor_name(requester),
                              a == Answer::unknown_key ? " (a key the DVM does not know)" : "");
                }
            }
        }
        // See the top: any answer is a success, the keys not answered are left out.
        pmix_status_t status = PMIX_SUCCESS;
        if (asked == 0) {
            status = PMIX_ERR_BAD_PARAM;
        } else if (answered == 0) {
            status = known == 0 ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOT_FOUND;
        }
        verbose()(5, "query from {}: {} of {} key(s) answered", requestor_name(requester), answered, asked);
        if (results->empty()) {
            delete results;
            answer_query(cbfunc, cbdata, status, nullptr);
            return;
        }
        answer_query(cbfunc, cbdata, status, results);
    });
    return PMIX_SUCCESS;
}

}  // namespace prte::pmix::detail
