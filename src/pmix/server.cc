// Starting and stopping the PMIx server, its URI, and what the other files share (internal.h).
//
// How tools find this server (PMIx 4.2; each point checked against Debian's 4.2.2):
//   - With PMIX_SERVER_TOOL_SUPPORT the server listens on loopback TCP and writes two rendezvous
//     files into PMIX_SERVER_TMPDIR (our session directory, ${TMPDIR:-/tmp}/prte.<uid>/...):
//     pmix.<host>.tool.<pid> and pmix.<host>.tool.<nspace>, both holding the same URI.
//   - A tool given PMIX_SERVER_URI (prun, pterm, `pquery --uri`) connects to it directly. One
//     given a pid looks for files named pmix.<host>.tool.<pid>* anywhere below ${TMPDIR:-/tmp}.
//     One given nothing first tries the system server (${TMPDIR:-/tmp}/pmix.sys.<host>) when it
//     asks for PMIX_CONNECT_SYSTEM_FIRST, then takes the single session server it finds below
//     ${TMPDIR:-/tmp}, failing with "multiple possible servers" as soon as rendezvous files with
//     different URIs exist there - including stale ones left by killed servers.
//   - pps 4.2.2 ignores its --pid option: it always connects "system server first, else the only
//     session server". We do NOT ask for PMIX_SERVER_SYSTEM_SUPPORT: PMIx 4.2.2 then takes
//     ${TMPDIR} as a system directory it created and, at PMIx_server_finalize, deletes it with
//     everything in it when it is mode 0700 (as `mktemp -d` makes it) - a user's files lost on
//     pterm. Without it pps finds our rendezvous files as the only session server; with several
//     DVMs of one user under one TMPDIR it says "multiple possible servers" (prun and pterm are
//     never confused: they use the DVM's URI, src/runtime/dvm_registry.h).
//   - <host> is PMIx's idea of the host name. PMIX_HOSTNAME would rename the files, so the master
//     never passes it: tools compute the name with gethostname() and would not find ours.
//   - prun and pterm connect by URI and do not declare themselves PMIX_LAUNCHER, so they open no
//     listener and write no rendezvous file: a running prun adds no second server for pps.
//   - pquery 4.2.2 (Debian) dies of SIGFPE in its own start-up before it connects anywhere.
// Only the master has tool support; a daemon's server serves its local clients only, which find
// it through the environment PMIx_server_setup_fork gives them.
#include "pmix/server.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mca/base/param.h"
#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "runtime/topology.h"
#include "util/tcp_nodelay.h"

namespace prte::pmix {
namespace detail {
namespace {

output::VerboseStream& stream()
{
    static output::VerboseStream s("pmix_server");
    return s;
}

// The host's state (host_state.h): created by start(), destroyed by stop().
std::unique_ptr<HostState>& owner()
{
    static std::unique_ptr<HostState> state;
    return state;
}

HostState::Server& state() { return host().server; }

pmix_server_module_t make_module()
{
    pmix_server_module_t m{};
    m.client_connected = client_connected_v1;
    m.client_connected2 = client_connected;
    m.client_finalized = client_finalized;
    m.abort = client_abort;
    m.fence_nb = fence_nb;
    m.direct_modex = direct_modex;
    m.spawn = spawn;
    m.connect = connect_procs;
    m.disconnect = disconnect_procs;
    m.register_events = register_events;
    m.deregister_events = deregister_events;
    m.notify_event = notify_event;
    m.query = query;
    m.tool_connected = tool_connected;
    m.log = log_request;
    m.allocate = allocate;
    m.job_control = job_control;
    m.iof_pull = iof_pull;
    m.push_stdin = push_stdin;
    m.group = group;
    m.publish = publish;
    m.lookup = lookup;
    m.unpublish = unpublish;
    // Not offered: monitor, credentials, fabric. PMIx answers PMIX_ERR_NOT_SUPPORTED for them.
    return m;
}

std::string real_hostname()
{
    char host[HOST_NAME_MAX + 1] = {};
    gethostname(host, sizeof(host) - 1);
    return host;
}

}  // namespace

const output::VerboseStream& verbose() { return stream(); }
void set_verbose_level(int level) { stream().set_level(level); }
HostState& host()
{
    if (!owner()) {
        // A call outside start()..stop(): a bug in its caller, which must check server_running().
        output::error("internal error: the PMIx host's state was used while its server is not running");
        std::abort();
    }
    return *owner();
}

const pmix_proc_t& server_proc() { return state().me; }
bool server_running() { return owner() && owner()->server.running; }

void post(std::function<void()> work) { runtime::Runtime::instance().loop().post(std::move(work)); }

PendingRelays& relays() { return state().relays; }

void answer_relayed(uint64_t id, RelayAnswer reply, const char* what, runtime::Rank from)
{
    if (!relays().answer(id, reply)) {
        verbose()(2, "{} {} from daemon {} ignored: its request was already answered", what, id, from);
    }
}

std::vector<runtime::Rank> route_to_daemon(runtime::Rank daemon)
{
    return route_to(rml::Messenger::instance().tree(), daemon);
}

std::vector<runtime::Rank> route_to_master() { return route_to_daemon(0); }

std::map<std::string, size_t>& stdin_in_flight() { return state().stdin_in_flight; }

pmix_status_t to_pmix_status(const Status& status)
{
    switch (status.code()) {
    case Errc::ok: return PMIX_SUCCESS;
    case Errc::bad_param: return PMIX_ERR_BAD_PARAM;
    case Errc::not_found: return PMIX_ERR_NOT_FOUND;
    case Errc::not_supported: return PMIX_ERR_NOT_SUPPORTED;
    case Errc::out_of_resource: return PMIX_ERR_OUT_OF_RESOURCE;
    case Errc::unreachable: return PMIX_ERR_UNREACH;
    case Errc::refused: return PMIX_ERR_NO_PERMISSIONS;
    case Errc::timed_out: return PMIX_ERR_TIMEOUT;
    case Errc::peer_ended: return PMIX_ERR_PROC_TERM_WO_SYNC;
    default: return PMIX_ERROR;
    }
}

}  // namespace detail

namespace {

// Whether the PMIx 4.2.2 repairs act here (pmix/pmix422/repairs.h), decided before PMIx's thread
// exists, and said on every daemon: on at verbose level 1; off because the loaded libpmix is not
// the one they were checked against, as a warning naming what is then at risk.
void decide_repairs()
{
    const mca::Param& wanted = *mca::ParamRegistry::instance().find("pmix_server_repairs");
    if (!wanted.as_bool()) prte_pmix422_repairs_switch_off("switched off by pmix_server_repairs");
    const char* why_not = prte_pmix422_repairs_state();
    if (!why_not) {
        detail::verbose()(1, "PMIx 4.2.2 repairs: on (libpmix build id {})", prte_pmix422_checked_build_id());
    } else if (wanted.as_bool() && *prte_pmix422_checked_build_id() != '\0') {
        output::warning("PMIx 4.2.2 repairs off: {}; at risk: every tool connection and group operation leaves "
                        "records in PMIx's server for good, and a group operation whose member ends may wait for ever "
                        "(pmix_server_repairs 0 silences this)",
                        why_not);
    } else {
        detail::verbose()(1, "PMIx 4.2.2 repairs: off ({})", why_not);
    }
}

}  // namespace

void register_params(mca::ParamRegistry& registry)
{
    registry.register_int({"pmix", "server", "verbose"}, 0,
                          "Verbosity of the PMIx server host: 1 refusals and errors, 2 jobs and tools, 5 every "
                          "upcall, 10 data",
                          {.min = 0});
    registry.register_bool({"pmix", "server", "repairs"}, true,
                           "Apply prte's repairs to OpenPMIx 4.2.2's server (records it keeps for good, group "
                           "operations it leaves waiting; docs/architecture.md, 'PMIx 4.2.2'); they act only on the "
                           "libpmix whose build id configure recorded. Off: those defects are left as they are");
}

Status start(const ServerOptions& options)
{
    using detail::state;
    if (detail::owner()) return {Errc::internal, "the PMIx server is already running"};

    // Registered by every program's setup_mca (program/mca_setup.cc), so prte_info lists them too;
    // registering again here (a test that starts the server alone) returns the same parameters.
    register_params(mca::ParamRegistry::instance());
    detail::set_verbose_level(static_cast<int>(mca::ParamRegistry::instance().find("pmix_server_verbose")->as_int()));
    decide_repairs();

    const runtime::Identity& id = runtime::Runtime::instance().identity();
    if (id.dvm_nspace.empty()) return {Errc::bad_param, "the PMIx server needs the DVM namespace, which is not set"};
    if (id.dvm_nspace.size() > PMIX_MAX_NSLEN) {
        return {Errc::bad_param, fmt::format("the DVM namespace '{}' is longer than PMIx allows ({} characters)",
                                             id.dvm_nspace, PMIX_MAX_NSLEN)};
    }
    // Before PMIx_server_init: PMIx's thread may call an upcall as soon as it exists.
    detail::owner() = std::make_unique<detail::HostState>();
    PMIX_LOAD_PROCID(&state().me, id.dvm_nspace.c_str(), id.rank);

    InfoArray info;
    info.add_string(PMIX_SERVER_NSPACE, id.dvm_nspace);
    info.add_rank(PMIX_SERVER_RANK, id.rank);
    if (!options.tmpdir.empty()) info.add_string(PMIX_SERVER_TMPDIR, options.tmpdir);
    if (options.tool_support) {
        info.add_bool(PMIX_SERVER_TOOL_SUPPORT, true);
    } else if (!id.node_name.empty() && id.node_name != detail::real_hostname()) {
        // A test-bed daemon plays a node of another name; tell PMIx, so what it says about this
        // node matches the names we register. Only without tool support: see the top of the file.
        info.add_string(PMIX_HOSTNAME, id.node_name);
    }

    // Output delivered before any tool asked for it (a job's first lines, before prun's pull
    // request) is to be kept for the tool, never written by the server itself: PMIx 4.2.2's server
    // writing it to its own stdout crashes (SIGSEGV in pmix_iof_write_output).
    info.add_bool(PMIX_IOF_LOCAL_OUTPUT, false);
    static pmix_server_module_t module = detail::make_module();
    // PMIx 4.2's shared-memory store (gds ds21) keeps a 4 KiB lock segment file, mapped, for every
    // namespace ever registered, after deregistration too: a DVM running job after job leaks one
    // per job. The hash store has no such leak and served Open MPI and our clients as fast here.
    // A user's own PMIX_MCA_gds still wins.
    setenv("PMIX_MCA_gds", "hash", 0);
    // PMIx 4.2.2 gathers lost-connection events into one per caching window (1 s), and restarts
    // the window at every new loss: with a tool leaving more often than once a second (a prun per
    // job), the gathered event grows by a 552-byte entry per tool, and is copied whole each time,
    // until the stream of jobs pauses. Without a window each loss is its own event.
    setenv("PMIX_MCA_pmix_event_caching_window", "0", 0);
    // Our topology, so the server does not discover the node a second time. Passed by pointer,
    // not through PMIx_Info_load, which would duplicate it (and later destroy what it holds).
    std::vector<pmix_info_t> all(info.data(), info.data() + info.size());
    pmix_topology_t topology{const_cast<char*>("hwloc"), runtime::shared_topology()};
    if (topology.topology) {
        pmix_info_t entry;
        PMIX_INFO_CONSTRUCT(&entry);
        PMIX_LOAD_KEY(entry.key, PMIX_TOPOLOGY2);
        entry.value.type = PMIX_TOPO;
        entry.value.data.topo = &topology;
        all.push_back(entry);
    }
    pmix_status_t rc = PMIx_server_init(&module, all.data(), all.size());
    if (rc != PMIX_SUCCESS) {
        detail::owner().reset();
        return {Errc::unreachable, fmt::format("PMIx_server_init failed: {}", PMIx_Error_string(rc))};
    }
    state().running = true;
    detail::time_group_operations();
    // PMIx's listening socket for tools exists now, and no tool has connected: the sockets accepted
    // from it inherit TCP_NODELAY (util/tcp_nodelay.h). Here, not as each tool connects: a walk of
    // the process's descriptors then raced with PMIx's threads opening and closing theirs.
    if (options.tool_support) util::set_tcp_nodelay_on_all_sockets();

    pmix_value_t* value = nullptr;
    rc = PMIx_Get(&state().me, PMIX_SERVER_URI, nullptr, 0, &value);
    if (rc == PMIX_SUCCESS && value && value->type == PMIX_STRING && value->data.string) {
        state().uri = value->data.string;
    }
    if (value) PMIX_VALUE_RELEASE(value);
    if (state().uri.empty() && options.tool_support) {
        stop();
        return {Errc::unreachable, fmt::format("the PMIx server started but reports no URI for tools ({})",
                                               PMIx_Error_string(rc))};
    }
    detail::verbose()(2, "PMIx server {} started{}; uri {}", describe(state().me),
                      options.tool_support ? " with tool support" : "", state().uri.empty() ? "(none)" : state().uri);

    detail::register_dvm_nspace();
    return {};
}

void daemons_lost(const std::vector<runtime::Rank>& daemons)
{
    if (!detail::server_running()) return;
    std::string why = fmt::format("daemon(s) {} on their way lost", fmt::join(daemons, ","));
    if (size_t n = detail::relays().fail_routed_through(daemons, PMIX_ERR_UNREACH, why); n > 0) {
        output::warning("{} request(s) relayed to other daemons answered {}: {}", n,
                        PMIx_Error_string(PMIX_ERR_UNREACH), why);
    }
}

// One ordered teardown: the relayed requests answered while PMIx can still take the answers; the
// server finalized, after which PMIx's thread, which reads parts of the host's state too, is gone;
// then the host's state, its timers and watches with it (host_state.h).
void stop()
{
    using detail::state;
    if (!detail::owner()) return;
    if (size_t n = state().relays.fail_all(PMIX_ERR_UNREACH, "the PMIx server is stopping"); n > 0) {
        detail::verbose()(1, "{} request(s) relayed to other daemons answered {}: the PMIx server is stopping", n,
                          PMIx_Error_string(PMIX_ERR_UNREACH));
    }
    prte_pmix422_before_server_finalize();  // nothing of ours on PMIx's thread waits for its lock now
    pmix_status_t rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS) detail::verbose()(1, "PMIx_server_finalize: {}", PMIx_Error_string(rc));
    detail::owner().reset();
}

const std::string& uri()
{
    static const std::string none;
    return detail::server_running() ? detail::state().uri : none;
}

}  // namespace prte::pmix
