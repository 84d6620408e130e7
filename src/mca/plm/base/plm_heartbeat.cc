#include "mca/plm/base/plm_heartbeat.h"

#include <fmt/format.h>

#include "mca/plm/base/daemon_table.h"
#include "mca/plm/base/plm_base.h"
#include "mca/plm/base/plm_daemons.h"
#include "mca/plm/base/plm_messages.h"
#include "rml/rml.h"
#include "runtime/runtime.h"
#include "util/output.h"

namespace prte::plm::base {
namespace {

using runtime::Rank;

runtime::Runtime& rt() { return runtime::Runtime::instance(); }
rml::Messenger& messenger() { return rml::Messenger::instance(); }

// A parent's report of a silent child. Its word is taken: it is the one daemon the child's traffic
// reaches the DVM through, so a child it cannot hear is of no use to the DVM either.
void on_silence_report(Rank origin, rml::Payload&& payload)
{
    msg::Silence s;
    if (Status st = msg::decode(payload, s); !st) {
        output::warning("dropped a heartbeat report from daemon {}: {}", origin, st.message());
        return;
    }
    if (s.rank == origin) {
        output::warning("dropped a heartbeat report from daemon {} about itself", origin);
        return;
    }
    declare_silent_daemon_lost(s.rank, std::chrono::milliseconds(s.silent_ms), origin);
}

}  // namespace

void start_master_heartbeat()
{
    std::chrono::seconds timeout = rt().settings().daemon_heartbeat_timeout;
    if (timeout.count() <= 0) return;
    messenger().register_handler(rml::tag::daemon_silent, on_silence_report);
    messenger().start_heartbeat(timeout, [](Rank child, std::chrono::milliseconds silent) {
        declare_silent_daemon_lost(child, silent, 0);
    });
}

void declare_silent_daemon_lost(Rank rank, std::chrono::milliseconds silent, Rank observer)
{
    if (rt().shutting_down() || rank == 0 || messenger().tree().departed(rank)) return;
    runtime::Node* node = daemons().node_of(rank);
    if (!node) return;  // not a daemon of this DVM
    std::string why = fmt::format(
        "daemon {} on node {} sent nothing for {:.1f} s{}, longer than prte_daemon_heartbeat_timeout ({} s): it is "
        "declared lost",
        rank, node->name, static_cast<double>(silent.count()) / 1000.0,
        observer == 0 ? std::string() : fmt::format(" to its parent, daemon {}", observer),
        rt().settings().daemon_heartbeat_timeout.count());
    // Told first, while the connections to it are open: handling the loss closes the one to a
    // child of this master (the lifeline) at once.
    msg::Silence notice{rank, static_cast<uint64_t>(silent.count())};
    if (Status st = messenger().send_direct(rank, rml::tag::declared_lost, msg::encode(notice)); !st) {
        framework().verbose()(5, "daemon {} declared lost: cannot tell it so: {}", rank, st.message());
    }
    daemon_unresponsive(rank, why);
    messenger().drop_connections(rank);
}

}  // namespace prte::plm::base
