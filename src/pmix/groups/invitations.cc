// Failures during an invitation (PMIx_Group_invite / PMIx_Group_join, RFC 0033): an invitee that
// ends before it answers is told to the leader as PMIX_GROUP_INVITE_FAILED, and a leader that ends
// before it declared the group complete is told to the invitees as PMIX_GROUP_LEADER_FAILED.
//
// PMIx 4.2.2 builds the asynchronous group out of events alone: the leader's PMIX_GROUP_INVITED
// (the group id, the invitees as its custom range), each invitee's PMIX_GROUP_INVITE_ACCEPTED or
// _DECLINED, and the leader's PMIX_GROUP_CONSTRUCT_COMPLETE (or _ABORT). Nothing of it reaches the
// host but those events, which pass through every daemon (event_relay.cc). So every daemon follows
// the invitations whose leader or some invitee runs on its node, and only it sees those processes
// end: the leader's daemon raises LEADER_FAILED, an invitee's daemon INVITE_FAILED, once each for
// the whole DVM (raise_everywhere). A process's end is looked at only once PMIx has read all it
// sent (process_ended.cc), so an answer sent just before a normal exit is never taken for none.
//
// A record goes when the leader completes or aborts the group, when the leader's failure has been
// told, or with the leader's job or that of all the invitees. Progress thread.
#include <pmix.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pmix/host_state.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"

namespace prte::pmix::detail {
namespace {

using Invitation = HostState::Invitation;

std::map<std::string, Invitation>& invitations() { return host().invitations; }

bool same(const pmix_proc_t& a, const pmix_proc_t& b) { return PMIX_CHECK_PROCID(&a, &b); }

// What the DVM needs of one event of the invitation protocol, copied off PMIx's thread.
struct Seen {
    pmix_status_t code;
    pmix_proc_t source;
    std::string id;
    std::vector<pmix_proc_t> range;  // PMIX_EVENT_CUSTOM_RANGE
};

bool is_invitation_code(pmix_status_t code)
{
    return code == PMIX_GROUP_INVITED || code == PMIX_GROUP_INVITE_ACCEPTED || code == PMIX_GROUP_INVITE_DECLINED ||
           code == PMIX_GROUP_CONSTRUCT_COMPLETE || code == PMIX_GROUP_CONSTRUCT_ABORT ||
           code == PMIX_GROUP_LEADER_FAILED;
}

void invited(const Seen& seen)
{
    Invitation inv;
    inv.leader = seen.source;
    for (const pmix_proc_t& p : seen.range) {
        if (!same(p, seen.source)) inv.invitees.push_back(p);
    }
    // Only a daemon that will see the leader or an invitee end has anything to do.
    if (count_here(&inv.leader, 1) == 0 && count_here(inv.invitees.data(), inv.invitees.size()) == 0) return;
    verbose()(5, "group {}: invitation from {} to {} followed", seen.id, describe(inv.leader),
              describe_all(inv.invitees));
    invitations()[seen.id] = std::move(inv);
}

// PMIx 4.2.2's answer names the group; an answer without one is matched by its leader (the
// custom range the invitee sent it to).
Invitation* invitation_answered_by(const Seen& seen)
{
    if (!seen.id.empty()) {
        auto it = invitations().find(seen.id);
        return it == invitations().end() ? nullptr : &it->second;
    }
    for (auto& [id, inv] : invitations()) {
        if (names(inv.invitees, seen.source) && names(seen.range, inv.leader)) return &inv;
    }
    return nullptr;
}

void observe(const Seen& seen)
{
    switch (seen.code) {
    case PMIX_GROUP_INVITED:
        if (!seen.id.empty()) invited(seen);
        break;
    case PMIX_GROUP_INVITE_ACCEPTED:
    case PMIX_GROUP_INVITE_DECLINED:
        if (Invitation* inv = invitation_answered_by(seen); inv && !names(inv->answered, seen.source)) {
            inv->answered.push_back(seen.source);
        }
        break;
    default:  // complete or aborted by its leader, or its leader's end told by its daemon (as the source)
        if (auto it = invitations().find(seen.id); it != invitations().end() && same(it->second.leader, seen.source)) {
            verbose()(5, "group {}: invitation {}; no longer followed", seen.id,
                      seen.code == PMIX_GROUP_CONSTRUCT_COMPLETE ? "completed by its leader"
                      : seen.code == PMIX_GROUP_CONSTRUCT_ABORT  ? "aborted by its leader"
                                                                 : "ended with its leader");
            invitations().erase(it);
        }
    }
}

}  // namespace

void observe_group_event(pmix_status_t code, const pmix_proc_t& source, const pmix_info_t info[], size_t ninfo)
{
    if (!is_invitation_code(code)) return;
    Seen seen{code, source, {}, {}};
    if (const pmix_info_t* id = find_info(info, ninfo, PMIX_GROUP_ID)) {
        seen.id = value_string(id->value).value_or("");
    }
    if (const pmix_info_t* r = find_info(info, ninfo, PMIX_EVENT_CUSTOM_RANGE)) seen.range = value_procs(r->value);
    // An abort ends a collective construct of the group too, if one is under way here.
    if (code == PMIX_GROUP_CONSTRUCT_ABORT && !seen.id.empty()) abort_construct(seen.id, seen.range);
    post([seen = std::move(seen)] { observe(seen); });
}

void invitation_party_ended(const pmix_proc_t& proc)
{
    for (auto it = invitations().begin(); it != invitations().end();) {
        const std::string& id = it->first;
        Invitation& inv = it->second;
        if (same(inv.leader, proc)) {
            std::vector<pmix_proc_t> waiting;
            for (const pmix_proc_t& p : inv.invitees) {
                if (!same(p, proc)) waiting.push_back(p);
            }
            raise_group_failure(PMIX_GROUP_LEADER_FAILED, id, proc, waiting,
                 fmt::format("group {}: leader {} ended before the group was complete", id, describe(proc)));
            it = invitations().erase(it);
            continue;
        }
        if (names(inv.invitees, proc) && !names(inv.answered, proc)) {
            inv.answered.push_back(proc);
            raise_group_failure(PMIX_GROUP_INVITE_FAILED, id, proc, {inv.leader},
                 fmt::format("group {}: invitee {} ended before it answered the invitation", id, describe(proc)));
        }
        ++it;
    }
}

void forget_invitations(const std::string& nspace)
{
    size_t before = invitations().size();
    std::erase_if(invitations(), [&](const auto& entry) {
        const Invitation& inv = entry.second;
        return nspace == inv.leader.nspace || std::all_of(inv.invitees.begin(), inv.invitees.end(), [&](const pmix_proc_t& p) {
                   return nspace == p.nspace;
               });
    });
    verbose()(5, "job {} deregistered: {} invitation(s) dropped, {} still followed", nspace,
              before - invitations().size(), invitations().size());
}

}  // namespace prte::pmix::detail
