// How a daemon declared lost learns it. While it was stopped (SIGSTOP, its host frozen) the DVM
// went on without it: its jobs were ended, its node dropped, its children re-parented. When it runs
// again it must end itself and its processes, which may still be running, rather than rejoin.
//
// It learns it from the master, the one that declared it, and never guesses it from its own clock.
// A daemon that finds it was not running for longer than the timeout cannot tell whether it was
// declared lost: if the master was frozen with it (a whole host or cluster suspended, the local
// test-bed's one machine) nobody was counting, and the master gives the time it was not looking
// back to everyone (rml/silence_watch.h). Ending itself on its own clock would then take a healthy
// DVM apart; and the opposite error - a daemon declared lost by a master that saw it silent, while
// its own clock says it barely paused - would leave it running unseen.
//
// So the master, on declaring it lost, sends it `declared_lost` and closes every connection it has
// to it. Every daemon keeps a connection to the master for its whole life (its call home), so on
// waking it reads that notice, or at least that connection's end, which on its own already means
// "lost the master: kill this node's processes and exit" (errmgr/prted), and which the exit
// watchdog turns into an exit even if the daemon's event loop is wedged (exit_watchdog.h). A
// frozen host whose network froze too gets the notice, or a reset, as soon as it speaks again: its
// first heartbeat goes to a parent that has closed its connection.
#include "prted/heartbeat.h"

#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::prted {
namespace {

using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }

double seconds(uint64_t ms) { return static_cast<double>(ms) / 1000.0; }

// The master decides; this daemon only says which child it cannot hear.
void report_silent_child(Rank child, std::chrono::milliseconds silent)
{
    plm::msg::Silence s{child, static_cast<uint64_t>(silent.count())};
    if (Status st = messenger().send(0, rml::tag::daemon_silent, plm::msg::encode(s)); !st) {
        output::warning("daemon {}: cannot report silent daemon {} to the master: {}", rt().identity().rank, child,
                        st.message());
    }
}

void on_declared_lost(Rank origin, rml::Payload&& payload)
{
    plm::msg::Silence s;
    if (origin != 0 || !plm::msg::decode(payload, s) || s.rank != rt().identity().rank) {
        output::warning("daemon {}: dropped a malformed or misdirected loss notice from daemon {}",
                        rt().identity().rank, origin);
        return;
    }
    if (rt().shutting_down()) return;
    output::error("daemon {}: the DVM declared this daemon lost after {:.1f} s without a word from it (stopped or "
                  "frozen; prte_daemon_heartbeat_timeout): ending its processes and exiting",
                  s.rank, seconds(s.silent_ms));
    rt().request_shutdown(1, "declared lost by the DVM");
}

}  // namespace

void start_heartbeat()
{
    // Registered even with the heartbeat off here: the notice is the master's, which has it on.
    messenger().register_handler(rml::tag::declared_lost, on_declared_lost);
    std::chrono::seconds timeout = rt().settings().daemon_heartbeat_timeout;
    if (timeout.count() <= 0) return;
    messenger().start_heartbeat(timeout, report_silent_child);
}

}  // namespace prte::prted
