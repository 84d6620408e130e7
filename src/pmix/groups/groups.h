// PMIx groups in the host (RFC 0033; docs/user-guide.md, "PMIx groups, connect and events"): their
// one home. The upcall and the collective it runs over the daemons (construct.cc), what a constructed
// group asked for, PMIX_GROUP_NOTIFY_TERMINATION and PMIX_GROUP_OPTIONAL (records.cc), the
// invitation protocol (invitations.cc), declared leaders (leaders.cc). The collective itself is
// grpcomm's (mca/grpcomm/grpcomm.h); what PMIx 4.2.2 leaves waiting is answered by
// ../pmix422/groups.c; process_ended.cc tells these files of a process's end.
#pragma once

#include <pmix_server.h>

#include <optional>
#include <string>
#include <vector>

#include "pmix/info_array.h"

namespace prte::pmix::detail {

// Once, after PMIx_server_init: PMIX_TIMEOUT of group operations is timed by the DVM, never by PMIx
// 4.2.2 (construct.cc; pmix422/group_timeouts.c).
void time_group_operations();
// The group upcall (construct.cc).
pmix_status_t group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[], size_t nprocs,
                    const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata);
// What a group failure event carries (construct.cc): the member that ended, the group, the members
// as its custom range, a text; non-default (only handlers registered for the code hear it) and
// not cached (nobody registering later does).
void group_event_info(InfoArray& info, const std::string& id, const pmix_proc_t& ended, const pmix_proc_t members[],
                      size_t nmembers, const std::string& message);
// Raises such an event for the whole DVM (raise_everywhere) to the processes `to`, `ended` its
// source, and logs `message` (pmix_server_verbose 2). Progress thread.
void raise_group_failure(pmix_status_t code, const std::string& id, const pmix_proc_t& ended,
                         const std::vector<pmix_proc_t>& to, const std::string& message);
// Whether `procs` names `proc` (a member of rank PMIX_RANK_WILDCARD names its whole job).
bool names(const std::vector<pmix_proc_t>& procs, const pmix_proc_t& proc);
// PMIX_GROUP_INVITE_FAILED to this node's members of group `id`: `ended` ended before it joined the
// construct. With a leader (`leader`, or one declared: group_leader()), to it alone, by its own
// daemon. Call before answering their construct, so the event reaches them first. Any thread.
void tell_invite_failed(const std::string& id, const pmix_proc_t& ended, const pmix_proc_t* leader,
                        const pmix_proc_t members[], size_t nmembers);
// A member raised PMIX_GROUP_CONSTRUCT_ABORT for group `id` (every daemon sees it): this node's
// part of each construct of that id under way ends, its callers answered PMIX_GROUP_CONSTRUCT_ABORT
// (construct.cc). `range`: the event's custom range, taken for the members when none is under way
// here. Any thread.
void abort_construct(const std::string& id, const std::vector<pmix_proc_t>& range);
// Construct leaders (leaders.cc). declare_group_leader(): on the leader's daemon, tells
// every daemon (progress thread). group_leader(): the declared leader of a construct under way
// (any thread). group_construct_ended(): forgets it. group_leader_ended(): a process of this node
// ended; raises PMIX_GROUP_LEADER_FAILED for each construct it led here (progress thread).
void declare_group_leader(const std::string& id, const pmix_proc_t& leader, const std::vector<pmix_proc_t>& members);
std::optional<pmix_proc_t> group_leader(const std::string& id);
void group_construct_ended(const std::string& id);
void group_leader_ended(const pmix_proc_t& proc);
void forget_group_leaders(const std::string& nspace);
void enable_group_leaders();
// PMIX_GROUP_NOTIFY_TERMINATION and PMIX_GROUP_OPTIONAL (records.cc). group_member_ended():
// a process of this node ended; raises PMIX_GROUP_MEMBER_FAILED for each group recorded for
// notification naming it, and says whether any did (its collectives must then fail everywhere,
// also after a normal end). optional_group_members(): the members a construct with
// PMIX_GROUP_OPTIONAL kept, which its destruct is over. destruct_goes_on_without_ended(): the
// group asked for PMIX_GROUP_NOTIFY_TERMINATION, so its destruct leaves out members that ended
// (an optional collective). Any thread; group_member_ended() raises events (progress thread).
void group_constructed(const std::string& id, const std::vector<pmix_proc_t>& members, bool notify_termination,
                       bool optional);
std::optional<std::vector<pmix_proc_t>> optional_group_members(const std::string& id);
bool destruct_goes_on_without_ended(const std::string& id);
// A member of such a group lost with its whole node (a tree change: enable_group_records() calls it)
// is told to this node's members, once. Progress thread.
void group_members_lost();
void enable_group_records();
void group_destructed(const std::string& id);
bool group_member_ended(const pmix_proc_t& proc);
void forget_group_records(const std::string& nspace);
// Invitations (invitations.cc). observe_group_event(): an event this daemon saw, raised here
// (notify_event) or relayed from another daemon; those of the invitation protocol are followed
// (any thread). invitation_party_ended(): a process of this node ended, after PMIx read all it
// sent; raises PMIX_GROUP_INVITE_FAILED / PMIX_GROUP_LEADER_FAILED as due. Progress thread.
void observe_group_event(pmix_status_t code, const pmix_proc_t& source, const pmix_info_t info[], size_t ninfo);
void invitation_party_ended(const pmix_proc_t& proc);
void forget_invitations(const std::string& nspace);
// The groups this node's server knows (directory.cc), for the group queries: listed when a
// construct completes here, unlisted at its destruct, a job's members dropped at its
// deregistration (a group left without members goes). Progress thread.
void group_listed(const std::string& id, const std::vector<pmix_proc_t>& members);
void group_unlisted(const std::string& id);
void forget_listed_groups(const std::string& nspace);
std::vector<std::string> listed_group_names();
std::optional<std::vector<pmix_proc_t>> listed_group_members(const std::string& id);
}  // namespace prte::pmix::detail
