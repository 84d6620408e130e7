// PMIX_GROUP_LEADER on a collective construct (RFC 0033): failure notification for a member that
// ends before it joins goes to the leader alone, and the leader's own end during the construct is
// told to the other members as PMIX_GROUP_LEADER_FAILED.
//
// Only the leader's daemon learns that it leads (PMIx 4.2.2 passes the leader's directives to its
// own server only, and only when it is the first member of its node to call:
// prte_pmix422_group_leader). That daemon tells every daemon, through the master, which broadcasts
// it; each keeps the leader of each construct under way until the construct ends there or the
// leader's job goes. Sent before anything else this daemon says about the construct, the word
// reaches every daemon before the master's word of a failure: both travel the same way.
//
// tell_invite_failed() reads the table from PMIx's thread too, hence the lock.
#include <pmix.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {

namespace wire {

rml::Payload encode(const GroupLeader& g)
{
    rml::Writer w;
    w.str(g.id).str(g.leader.nspace).u32(g.leader.rank);
    return w.take();
}

Status decode(const rml::Payload& in, GroupLeader& g)
{
    rml::Reader r(in, "group leader");
    g.id = r.str();
    std::string nspace = r.str();
    pmix_rank_t rank = r.u32();
    if (!r.ok() || nspace.size() > PMIX_MAX_NSLEN) {
        return Status(Errc::bad_param, r.ok() ? "namespace too long" : r.error());
    }
    PMIX_LOAD_PROCID(&g.leader, nspace.c_str(), rank);
    return {};
}

}  // namespace wire

namespace detail {
namespace {

using Leader = HostState::Leader;

std::mutex& lock() { return host().leaders.lock; }
std::map<std::string, Leader>& leaders() { return host().leaders.by_group; }

rml::Messenger& messenger() { return rml::Messenger::instance(); }

void remember(const std::string& id, const pmix_proc_t& leader, std::vector<pmix_proc_t> members)
{
    std::lock_guard<std::mutex> hold(lock());
    Leader& entry = leaders()[id];
    entry.proc = leader;
    if (!members.empty()) entry.members = std::move(members);
}

// Every daemon: the leader of a construct, declared on another node.
void on_broadcast(runtime::Rank, rml::Payload&& payload)
{
    wire::GroupLeader g;
    if (Status st = wire::decode(payload, g); !st) {
        output::warning("dropped a group leader's declaration: {}", st.message());
        return;
    }
    verbose()(5, "group {}: leader {}", g.id, describe(g.leader));
    remember(g.id, g.leader, {});
}

// Master: from the leader's daemon, for everyone.
void on_relay(runtime::Rank, rml::Payload&& payload)
{
    if (Status st = broadcast_to_daemons(rml::tag::group_leader_all, payload); !st) {
        output::warning("cannot tell the daemons a group's leader: {}", st.message());
    }
}

}  // namespace

void declare_group_leader(const std::string& id, const pmix_proc_t& leader, const std::vector<pmix_proc_t>& members)
{
    verbose()(5, "group {}: {} leads the construct (PMIX_GROUP_LEADER); telling every daemon", id, describe(leader));
    remember(id, leader, members);
    if (Status st = to_every_daemon(rml::tag::group_leader, rml::tag::group_leader_all, wire::encode(wire::GroupLeader{id, leader})); !st) {
        verbose()(1, "group {}: cannot tell every daemon its leader: {}", id, st.message());
    }
}

std::optional<pmix_proc_t> group_leader(const std::string& id)
{
    std::lock_guard<std::mutex> hold(lock());
    auto it = leaders().find(id);
    if (it == leaders().end()) return std::nullopt;
    return it->second.proc;
}

void group_construct_ended(const std::string& id)
{
    std::lock_guard<std::mutex> hold(lock());
    leaders().erase(id);
}

void group_leader_ended(const pmix_proc_t& proc)
{
    std::vector<std::pair<std::string, std::vector<pmix_proc_t>>> to_tell;
    {
        std::lock_guard<std::mutex> hold(lock());
        for (auto it = leaders().begin(); it != leaders().end();) {
            if (!PMIX_CHECK_PROCID(&it->second.proc, &proc) || it->second.members.empty()) {
                ++it;
                continue;
            }
            std::vector<pmix_proc_t> others;
            for (const pmix_proc_t& m : it->second.members) {
                // a wildcard member names the leader's whole job: it stays (the leader has gone)
                if (!PMIX_CHECK_NSPACE(m.nspace, proc.nspace) || m.rank != proc.rank) others.push_back(m);
            }
            to_tell.emplace_back(it->first, std::move(others));
            it = leaders().erase(it);
        }
    }
    for (const auto& [id, others] : to_tell) {
        raise_group_failure(PMIX_GROUP_LEADER_FAILED, id, proc, others,
                            fmt::format("group {}: leader {} ended during the construct", id, describe(proc)));
    }
}

void forget_group_leaders(const std::string& nspace)
{
    std::lock_guard<std::mutex> hold(lock());
    std::erase_if(leaders(), [&](const auto& entry) { return nspace == entry.second.proc.nspace; });
}

void enable_group_leaders()
{
    messenger().register_handler(rml::tag::group_leader_all, on_broadcast);
    if (runtime::Runtime::instance().identity().role == mca::ProcessRole::master) {
        messenger().register_handler(rml::tag::group_leader, on_relay);
    }
}

}  // namespace detail
}  // namespace prte::pmix
