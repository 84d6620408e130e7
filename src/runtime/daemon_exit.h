// How long a daemon may take to exit: the bound behind "a daemon never outlives its master" (prted's
// exit watchdog) and the master's wait for its daemons when the DVM stops.
#pragma once

#include <chrono>

namespace prte::mca {
class ParamRegistry;
}

namespace prte::runtime {

void register_daemon_exit_params(mca::ParamRegistry& registry);

// prte_daemon_exit_timeout: from a daemon's order to exit, or its loss of the master, to its end.
std::chrono::seconds daemon_exit_timeout();

// The master's wait for its daemons to exit: theirs, plus a margin for the news of their exit to
// travel back, so that a daemon ended by its own watchdog is not reported as one that did not answer.
std::chrono::seconds master_teardown_timeout();

// prte_test_wedge_on_sigusr2 (testing only).
bool test_wedge_on_sigusr2();

}  // namespace prte::runtime
