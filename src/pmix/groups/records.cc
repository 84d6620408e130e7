// The groups this node's members are in that asked for PMIX_GROUP_NOTIFY_TERMINATION (RFC 0033:
// "notify remaining members when another member terminates without first leaving the group"), or
// were constructed with PMIX_GROUP_OPTIONAL (their destruct is over the members the construct kept:
// PMIx still names those it left out).
//
// Every daemon hosting members records such a group when its construct completes here, and forgets
// it when its destruct completes. When one of this node's processes ends while a record names it,
// the member ended without leaving: this daemon, the only one that sees that end, raises
// PMIX_GROUP_MEMBER_FAILED once for the whole DVM (the other members hear it wherever they are),
// and tells every daemon it ended, also when it ended normally. The group's destruct then goes on
// without it (RFC 0033: "the destruct tracker updated to account for the lack of participation";
// the event serves in place of an error): it is an optional collective, and a destruct PMIx holds
// for it on its own node is handed over (destruct_goes_on_without_ended()).
//
// PMIx 4.2.2 completes a group of one node that asks for no context id without the DVM, so such a
// group is never recorded. A record goes once every job with members here has been deregistered,
// so a group never destructed does not stay. The records are read from PMIx's thread too (a
// destruct held for an ended member): a lock guards them.
#include <pmix.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "rml/rml.h"
#include "runtime/job.h"

namespace prte::pmix::detail {
namespace {

using Record = HostState::GroupRecord;

std::map<std::string, Record>& records() { return host().group_records.by_id; }
std::mutex& records_lock() { return host().group_records.lock; }

void tell_member_failed(const std::string& id, const Record& record, const pmix_proc_t& ended)
{
    InfoArray info;
    group_event_info(info, id, ended, record.members.data(), record.members.size(),
                     fmt::format("group {}: member {} ended without leaving the group", id, describe(ended)));
    verbose()(2, "group {}: member {} ended without leaving it; telling the other members (PMIX_GROUP_NOTIFY_TERMINATION)",
              id, describe(ended));
    if (!raise_everywhere(PMIX_GROUP_MEMBER_FAILED, ended, PMIX_RANGE_CUSTOM, info)) {
        verbose()(1, "group {}: cannot tell the members that {} ended: its info cannot be packed", id, describe(ended));
    }
}

// The members (a whole job's ranks, for a PMIX_RANK_WILDCARD member) whose node's daemon has left
// the DVM, or that the master has detached from it.
std::vector<pmix_proc_t> lost_members(const std::vector<pmix_proc_t>& members)
{
    std::vector<pmix_proc_t> out;
    const rml::RadixTree& tree = rml::Messenger::instance().tree();
    for_each_member(members, [&](const pmix_proc_t& p, const runtime::Proc& proc) {
        if (!proc.node) return;
        runtime::Rank daemon = proc.node->daemon;
        if (daemon == runtime::kInvalidRank || tree.departed(daemon)) out.push_back(p);
    });
    return out;
}

}  // namespace

void group_members_lost()
{
    struct Lost {
        std::string id;
        std::vector<pmix_proc_t> members;
        pmix_proc_t proc;
    };
    std::vector<Lost> lost;
    {
        std::lock_guard<std::mutex> hold(records_lock());
        for (auto& [id, record] : records()) {
            if (!record.notify_termination) continue;
            for (const pmix_proc_t& p : lost_members(record.members)) {
                if (record.lost_told.insert(fmt::format("{}:{}", p.nspace, p.rank)).second) {
                    lost.push_back({id, record.members, p});
                }
            }
        }
    }
    // Each daemon hosting members tells its own: an event the DVM raises reaches this node's
    // processes only (events.cc), and the member's own daemon, which tells the others of an end it
    // sees, is gone.
    for (const Lost& l : lost) {
        auto info = std::make_unique<InfoArray>();
        std::string message = fmt::format("group {}: member {} was lost with its node", l.id, describe(l.proc));
        group_event_info(*info, l.id, l.proc, l.members.data(), l.members.size(), message);
        verbose()(2, "{}; telling this node's members (PMIX_GROUP_NOTIFY_TERMINATION)", message);
        notify_from_dvm(PMIX_GROUP_MEMBER_FAILED, PMIX_RANGE_CUSTOM, std::move(info),
                        fmt::format("group {}'s members of {}'s loss", l.id, describe(l.proc)));
    }
}

void enable_group_records()
{
    rml::Messenger::instance().add_tree_listener([] { group_members_lost(); });
}

void group_constructed(const std::string& id, const std::vector<pmix_proc_t>& members, bool notify_termination,
                       bool optional)
{
    Record record;
    record.members = members;
    record.notify_termination = notify_termination;
    record.optional = optional;
    for (const pmix_proc_t& m : members) {
        if (count_here(&m, 1) > 0) record.local_jobs.insert(m.nspace);
    }
    if (record.local_jobs.empty()) return;
    if (notify_termination) verbose()(5, "group {}: recorded for PMIX_GROUP_NOTIFY_TERMINATION", id);
    if (optional) verbose()(5, "group {}: recorded as optional (PMIX_GROUP_OPTIONAL)", id);
    std::lock_guard<std::mutex> hold(records_lock());
    records()[id] = std::move(record);
}

std::optional<std::vector<pmix_proc_t>> optional_group_members(const std::string& id)
{
    std::lock_guard<std::mutex> hold(records_lock());
    auto it = records().find(id);
    if (it == records().end() || !it->second.optional) return std::nullopt;
    return it->second.members;
}

bool destruct_goes_on_without_ended(const std::string& id)
{
    std::lock_guard<std::mutex> hold(records_lock());
    auto it = records().find(id);
    return it != records().end() && it->second.notify_termination;
}

void group_destructed(const std::string& id)
{
    std::lock_guard<std::mutex> hold(records_lock());
    if (records().erase(id)) verbose()(5, "group {}: record dropped (destructed)", id);
}

bool group_member_ended(const pmix_proc_t& proc)
{
    std::vector<std::pair<std::string, Record>> naming;
    {
        std::lock_guard<std::mutex> hold(records_lock());
        for (const auto& [id, record] : records()) {
            if (record.notify_termination && names(record.members, proc)) naming.emplace_back(id, record);
        }
    }
    for (const auto& [id, record] : naming) tell_member_failed(id, record, proc);
    return !naming.empty();
}

void forget_group_records(const std::string& nspace)
{
    std::lock_guard<std::mutex> hold(records_lock());
    size_t before = records().size();
    for (auto it = records().begin(); it != records().end();) {
        it->second.local_jobs.erase(nspace);
        it = it->second.local_jobs.empty() ? records().erase(it) : std::next(it);
    }
    verbose()(5, "job {} deregistered: {} group record(s) dropped, {} still held", nspace, before - records().size(),
              records().size());
}

}  // namespace prte::pmix::detail
