#include "mca/base/core_params.h"

#include <cstdint>
#include <limits>

#include "util/strings.h"

namespace prte::mca {
namespace {

constexpr int kDaemonExitSeconds = 5;
constexpr int kLeaveMilliseconds = 2000;

void register_runtime_params(ParamRegistry& registry)
{
    registry.register_string({"prte", "", "node_name"}, "",
                             "Node name this process reports (default: the hostname); the "
                             "local-node test-bed sets it for each daemon");
    registry.register_bool({"prte", "", "elastic_mode"}, false,
                           "Let the DVM grow and shrink while it runs (PMIx_Allocation_request, palloc, prun "
                           "--add-host); off, it keeps the nodes it started with");
    registry.register_int({"prte", "", "elastic_leave_timeout"}, kLeaveMilliseconds,
                          "Milliseconds a daemon named by a shrink waits for its connections to close before it "
                          "leaves anyway (a bounded fallback: survivors close them as soon as the order passes)",
                          {0, std::numeric_limits<int32_t>::max()});
    registry.register_bool({"prte", "", "test_hold_launch"}, false,
                           "Testing only: hold every job at LAUNCH_APPS until the next size change starts, so that "
                           "tests can put a job in flight across a shrink without sleeping");
    registry.register_int({"prte", "", "daemon_exit_timeout"}, kDaemonExitSeconds,
                          "Seconds a daemon has to finish exiting once told to, or once its connection to the master "
                          "closes, before a watchdog thread (independent of its event loop) kills its processes and "
                          "ends it; the master waits this long plus 2 s for its daemons when the DVM stops",
                          {1, 3600});
    registry.register_bool({"prte", "", "test_wedge_on_sigusr2"}, false,
                           "Testing only: a daemon's event loop blocks for good on SIGUSR2, as a wedged PMIx server once "
                           "made it, so that tests can prove the exit watchdog");
}

void register_messenger_params(ParamRegistry& registry)
{
    // The tree's arithmetic is in uint32_t (RadixTree); 0 or a negative width has no meaning.
    registry.register_int({"rml", "", "radix"}, 64,
                          "Width of the radix routing tree over the daemons (children per daemon)",
                          {1, std::numeric_limits<uint32_t>::max()});
    registry.register_string({"oob", "tcp", "if_include"}, "",
                             "Interfaces or IPv4 networks (comma-separated: lo,eth0,198.18.0.0/24) the daemons "
                             "listen on and advertise; empty: every interface that is up");
    registry.register_int({"rml", "base", "verbose"}, 0,
                          "Verbosity of daemon messaging (5: connections and routes, 10: every connection attempt)",
                          {.min = 0});
}

// A registered parameter's value, or the fallback when it is not (a registry in a unit test).
int64_t int_or(const ParamRegistry& registry, const char* name, int64_t fallback)
{
    const Param* p = registry.find(name);
    return p ? p->as_int() : fallback;
}

bool bool_or(const ParamRegistry& registry, const char* name, bool fallback)
{
    const Param* p = registry.find(name);
    return p ? p->as_bool() : fallback;
}

std::string string_or(const ParamRegistry& registry, const char* name)
{
    const Param* p = registry.find(name);
    return p ? p->as_string() : std::string();
}

}  // namespace

void register_core_params(ParamRegistry& registry)
{
    register_runtime_params(registry);
    register_messenger_params(registry);
}

runtime::Settings runtime_settings(const ParamRegistry& registry)
{
    runtime::Settings s;
    s.node_name = string_or(registry, "prte_node_name");
    s.elastic_mode = bool_or(registry, "prte_elastic_mode", false);
    s.elastic_leave_timeout =
        std::chrono::milliseconds(int_or(registry, "prte_elastic_leave_timeout", kLeaveMilliseconds));
    s.daemon_exit_timeout = std::chrono::seconds(int_or(registry, "prte_daemon_exit_timeout", kDaemonExitSeconds));
    s.test_hold_launch = bool_or(registry, "prte_test_hold_launch", false);
    s.test_wedge_on_sigusr2 = bool_or(registry, "prte_test_wedge_on_sigusr2", false);
    return s;
}

rml::Options messenger_options(const ParamRegistry& registry, runtime::Rank self, std::string secret)
{
    rml::Options o;
    o.self = self;
    o.secret = std::move(secret);
    int64_t radix = int_or(registry, "rml_radix", 64);
    o.radix = radix < 1 ? 1 : static_cast<uint32_t>(radix);
    o.if_include = util::split(string_or(registry, "oob_tcp_if_include"), ',', true);
    o.verbose = static_cast<int>(int_or(registry, "rml_base_verbose", 0));
    return o;
}

}  // namespace prte::mca
