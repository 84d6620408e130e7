#include "runtime/daemon_exit.h"

#include "mca/base/param.h"

namespace prte::runtime {

namespace {
constexpr const char* kParam = "prte_daemon_exit_timeout";
constexpr int kDefaultSeconds = 5;
constexpr std::chrono::seconds kReportMargin{2};
}  // namespace

void register_daemon_exit_params(mca::ParamRegistry& registry)
{
    registry.register_int({"prte", "", "daemon_exit_timeout"}, kDefaultSeconds,
                          "Seconds a daemon has to finish exiting once told to, or once its connection to the master "
                          "closes, before a watchdog thread (independent of its event loop) kills its processes and "
                          "ends it; the master waits this long plus 2 s for its daemons when the DVM stops",
                          {1, 3600});
    registry.register_bool({"prte", "", "test_wedge_on_sigusr2"}, false,
                           "Testing only: a daemon's event loop blocks for good on SIGUSR2, as a wedged PMIx server once "
                           "made it, so that tests can prove the exit watchdog");
}

bool test_wedge_on_sigusr2()
{
    const mca::Param* p = mca::ParamRegistry::instance().find("prte_test_wedge_on_sigusr2");
    return p && p->as_bool();
}

std::chrono::seconds daemon_exit_timeout()
{
    const mca::Param* p = mca::ParamRegistry::instance().find(kParam);
    return std::chrono::seconds(p ? p->as_int() : kDefaultSeconds);
}

std::chrono::seconds master_teardown_timeout() { return daemon_exit_timeout() + kReportMargin; }

}  // namespace prte::runtime
