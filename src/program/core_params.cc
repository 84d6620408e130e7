#include "program/core_params.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "util/strings.h"

namespace prte::program {
namespace {

// prte_daemon_heartbeat_timeout's default: decided by prte_elastic_mode (runtime_settings). A DVM
// that carries on without a lost daemon wants to find hung ones; a fixed DVM, which ends with any
// lost daemon, keeps PRRTE's behaviour unless asked.
constexpr int64_t kHeartbeatByMode = -1;
constexpr std::chrono::seconds kElasticHeartbeatTimeout{30};

// The defaults are those of the plain-value structs, so that each is written once.
void register_runtime_params(mca::ParamRegistry& registry)
{
    const runtime::Settings defaults;
    registry.register_string({"prte", "", "log_file"}, "",
                             "The master's log once the DVM is ready: its errors, warnings, verbose streams, the "
                             "daemons' lines and PMIx_Log (prte --log-file); empty: the terminal, or prte.log in the "
                             "session directory for a daemonized DVM");
    registry.register_bool({"prte", "", "debug_daemons_file"}, defaults.debug_daemons_file,
                           "Write each daemon's lines (its verbose streams, warnings and errors) to a file of its own, "
                           "prted.<rank>.<node>.log beside the master's log (or in its session directory), instead of "
                           "into the master's log (prte --debug-daemons-file)");
    registry.register_string({"prte", "", "node_name"}, "",
                             "Node name this process reports (default: the hostname); the "
                             "local-node test-bed sets it for each daemon");
    registry.register_bool({"prte", "", "elastic_mode"}, defaults.elastic_mode,
                           "Let the DVM grow and shrink while it runs (PMIx_Allocation_request, palloc, prun "
                           "--add-host); off, it keeps the nodes it started with");
    registry.register_int({"prte", "", "elastic_leave_timeout"}, defaults.elastic_leave_timeout.count(),
                          "Milliseconds a daemon named by a shrink waits for its connections to close before it "
                          "leaves anyway (a bounded fallback: survivors close them as soon as the order passes)",
                          {0, std::numeric_limits<int32_t>::max()});
    registry.register_bool({"prte", "", "autoscale"}, defaults.autoscale,
                           "Jobs that do not fit the DVM wait while it borrows just enough nodes from its lender "
                           "(ras_ssh_pool, Slurm), and borrowed nodes idle for prte_autoscale_idle_timeout go back; "
                           "needs prte_elastic_mode 1");
    registry.register_int({"prte", "", "autoscale_max_nodes"}, defaults.autoscale_max_nodes,
                          "The most nodes the autoscaler may borrow at once; a job that could not fit even then is "
                          "refused at once. 0: as many as the lender has",
                          {0, std::numeric_limits<int32_t>::max()});
    registry.register_int({"prte", "", "autoscale_min_nodes"}, defaults.autoscale_min_nodes,
                          "Borrowed nodes the autoscaler keeps however long they are idle (kept warm for the next "
                          "jobs)",
                          {0, std::numeric_limits<int32_t>::max()});
    registry.register_int({"prte", "", "autoscale_idle_timeout"}, defaults.autoscale_idle_timeout.count(),
                          "Seconds a borrowed node may run no process before the autoscaler gives it back", {0, 86400});
    registry.register_int({"prte", "", "autoscale_batch_ms"}, defaults.autoscale_batch.count(),
                          "Milliseconds jobs that do not fit gather before the autoscaler asks for the nodes they "
                          "need together, in one grow",
                          {0, 60000});
    registry.register_bool({"prte", "", "queue"}, defaults.queue,
                           "A job whose mapping fails only because other jobs hold the slots it needs waits in the "
                           "DVM's queue until they end, instead of failing (prun --queue asks it for one job); a job "
                           "that could never fit the DVM still fails at once");
    registry.register_enum({"prte", "", "admission_order"}, defaults.admission_strict ? "strict" : "backfill",
                           {"strict", "backfill"},
                           "The order of jobs that wait (the queue, the autoscaler's nodes): strict (arrival order: "
                           "a job waits while any earlier job waits) or backfill (a later job that fits now runs "
                           "first, at most prte_admission_max_passes times past any waiting job)");
    registry.register_int({"prte", "", "admission_max_passes"}, defaults.admission_max_passes,
                          "With prte_admission_order backfill: how many later jobs may run before a waiting job; "
                          "then the jobs behind it wait too, so that it cannot starve",
                          {0, 1000000});
    registry.register_string({"prte", "", "stack_trace_debugger"}, defaults.stack_trace_debugger,
                             "The gdb each daemon runs (as '<it> -p PID -batch -ex \"thread apply all bt\"') to take the "
                             "stacks of its live processes when a job with prun --get-stack-traces times out: a name "
                             "looked up in PATH, or a path; when it is not found each node says so in one line");
    registry.register_int({"prte", "", "stack_trace_timeout"}, defaults.stack_trace_timeout.count(),
                          "Seconds each debugger run for prun --get-stack-traces may take before it is killed (a hung "
                          "debugger cannot keep a timed-out job from ending)",
                          {1, 3600});
    registry.register_bool({"prte", "", "test_hold_launch"}, defaults.test_hold_launch,
                           "Testing only: hold every job at LAUNCH_APPS until the next size change starts, so that "
                           "tests can put a job in flight across a shrink without sleeping");
    registry.register_bool({"prte", "", "test_fail_shrink_order"}, defaults.test_fail_shrink_order,
                           "Testing only: every shrink order's broadcast fails as if no daemon could be reached, so "
                           "that tests can see a shrink that cannot be carried out (PMIX_ERR_DVM_MOD)");
    registry.register_int({"prte", "", "test_answer_tools_after_hangup"}, defaults.test_answer_tools_after_hangup,
                          "Testing only: the first this many tool connections are answered only once the tool has "
                          "hung up (at most 5 s), so that tests can end a tool in the middle of its handshake "
                          "without racing it",
                          {0, 1000000});
    registry.register_int({"prte", "", "daemon_exit_timeout"}, defaults.daemon_exit_timeout.count(),
                          "Seconds a daemon has to finish exiting once told to, or once its connection to the master "
                          "closes, before a watchdog thread (independent of its event loop) kills its processes and "
                          "ends it; the master waits this long plus 2 s for its daemons when the DVM stops",
                          {1, 3600});
    registry.register_int({"prte", "", "daemon_heartbeat_timeout"}, kHeartbeatByMode,
                          "Seconds without a word from a daemon (each sends its parent in the routing tree a "
                          "heartbeat every quarter of this) after which it is declared lost, as if it had crashed: "
                          "a daemon stopped or frozen keeps its connections up, so nothing else notices it. -1: "
                          "30 in elastic mode (prte_elastic_mode), off otherwise; 0: off",
                          {-1, 86400});
    // PRRTE's name. Read by program::init before the topology is first used; a DVM passes it on
    // to the daemons it launches, like any parameter it was given.
    registry.register_string({"hwloc", "", "use_topo_file"}, "",
                             "An hwloc XML file (lstopo --of xml) this process takes as its node's topology instead "
                             "of discovering it: its slots, binding and the topology its daemon sends the master "
                             "come from the file. Empty: discover the node");
    registry.register_bool({"prte", "", "test_wedge_on_sigusr2"}, defaults.test_wedge_on_sigusr2,
                           "Testing only: a daemon's event loop blocks for good on SIGUSR2, as a wedged PMIx server once "
                           "made it, so that tests can prove the exit watchdog");
}

void register_messenger_params(mca::ParamRegistry& registry)
{
    const rml::Options defaults;
    // The tree's arithmetic is in uint32_t (RadixTree); 0 or a negative width has no meaning.
    registry.register_int({"rml", "", "radix"}, defaults.radix,
                          "Width of the radix routing tree over the daemons (children per daemon)",
                          {1, std::numeric_limits<uint32_t>::max()});
    registry.register_string({"oob", "tcp", "if_include"}, "",
                             "Interfaces or IPv4 networks (comma-separated: lo,eth0,198.18.0.0/24) the daemons "
                             "listen on and advertise; empty: every interface that is up",
                             rml::check_if_include);
    registry.register_int({"rml", "", "max_authenticating"}, 0,
                          "Connections a daemon (the master included) keeps at once that are accepted but not yet "
                          "authenticated; past it the oldest is closed. 0: a quarter of the process's descriptor "
                          "limit (ulimit -n), at most 512",
                          {.min = 0, .max = std::numeric_limits<int32_t>::max()});
    registry.register_int({"rml", "base", "verbose"}, defaults.verbose,
                          "Verbosity of daemon messaging (5: connections and routes, 10: every connection attempt)",
                          {.min = 0});
}

// rml_max_authenticating 0: strangers (a flood, a port scanner) may hold at most a quarter of the
// descriptors this process may open, so that they never starve its daemons, jobs and tools.
uint32_t default_max_strangers()
{
    constexpr uint64_t kMost = 512;
    rlimit nofile{};
    if (getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur == RLIM_INFINITY) return kMost;
    return static_cast<uint32_t>(std::clamp<uint64_t>(nofile.rlim_cur / 4, 1, kMost));
}

// A core parameter, registered (by setup_mca in every program, or here again: registering twice
// returns the same parameter, so a unit test's registry needs no setup).
const mca::Param& core_param(mca::ParamRegistry& registry, const char* name)
{
    if (const mca::Param* p = registry.find(name)) return *p;
    register_runtime_params(registry);
    register_messenger_params(registry);
    return *registry.find(name);
}

}  // namespace

void register_core_params(mca::ParamRegistry& registry)
{
    register_runtime_params(registry);
    register_messenger_params(registry);
}

runtime::Settings runtime_settings(mca::ParamRegistry& registry)
{
    runtime::Settings s;
    s.node_name = core_param(registry, "prte_node_name").as_string();
    s.log_file = core_param(registry, "prte_log_file").as_string();
    s.debug_daemons_file = core_param(registry, "prte_debug_daemons_file").as_bool();
    s.elastic_mode = core_param(registry, "prte_elastic_mode").as_bool();
    s.elastic_leave_timeout = std::chrono::milliseconds(core_param(registry, "prte_elastic_leave_timeout").as_int());
    s.autoscale = core_param(registry, "prte_autoscale").as_bool();
    s.autoscale_max_nodes = static_cast<int>(core_param(registry, "prte_autoscale_max_nodes").as_int());
    s.autoscale_min_nodes = static_cast<int>(core_param(registry, "prte_autoscale_min_nodes").as_int());
    s.autoscale_idle_timeout = std::chrono::seconds(core_param(registry, "prte_autoscale_idle_timeout").as_int());
    s.autoscale_batch = std::chrono::milliseconds(core_param(registry, "prte_autoscale_batch_ms").as_int());
    s.queue = core_param(registry, "prte_queue").as_bool();
    s.admission_strict = core_param(registry, "prte_admission_order").as_string() == "strict";
    s.admission_max_passes = static_cast<int>(core_param(registry, "prte_admission_max_passes").as_int());
    s.daemon_exit_timeout = std::chrono::seconds(core_param(registry, "prte_daemon_exit_timeout").as_int());
    int64_t heartbeat = core_param(registry, "prte_daemon_heartbeat_timeout").as_int();
    s.daemon_heartbeat_timeout = heartbeat == kHeartbeatByMode
                                     ? (s.elastic_mode ? kElasticHeartbeatTimeout : std::chrono::seconds(0))
                                     : std::chrono::seconds(heartbeat);
    s.stack_trace_debugger = core_param(registry, "prte_stack_trace_debugger").as_string();
    s.stack_trace_timeout = std::chrono::seconds(core_param(registry, "prte_stack_trace_timeout").as_int());
    s.test_hold_launch = core_param(registry, "prte_test_hold_launch").as_bool();
    s.test_fail_shrink_order = core_param(registry, "prte_test_fail_shrink_order").as_bool();
    s.test_answer_tools_after_hangup = core_param(registry, "prte_test_answer_tools_after_hangup").as_int();
    s.test_wedge_on_sigusr2 = core_param(registry, "prte_test_wedge_on_sigusr2").as_bool();
    return s;
}

std::string topology_file(mca::ParamRegistry& registry)
{
    return core_param(registry, "hwloc_use_topo_file").as_string();
}

rml::Options messenger_options(mca::ParamRegistry& registry, runtime::Rank self, std::string secret)
{
    rml::Options o;
    o.self = self;
    o.secret = std::move(secret);
    int64_t radix = core_param(registry, "rml_radix").as_int();
    o.radix = radix < 1 ? 1 : static_cast<uint32_t>(radix);
    o.if_include = util::split(core_param(registry, "oob_tcp_if_include").as_string(), ',', true);
    o.verbose = static_cast<int>(core_param(registry, "rml_base_verbose").as_int());
    int64_t strangers = core_param(registry, "rml_max_authenticating").as_int();
    o.limits.max_strangers = strangers > 0 ? static_cast<uint32_t>(strangers) : default_max_strangers();
    return o;
}

}  // namespace prte::program
