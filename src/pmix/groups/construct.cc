// PMIx groups (PMIx_Group_construct/destruct) across nodes and namespaces.
//
// PMIx 4.2 completes a group of this node's processes that asks for no context id by itself and
// only tells us (PMIX_GROUP_LOCAL_ONLY). Otherwise each server hosting members calls the group
// upcall once, when all its local members have called, with the members, the request for a context
// id and the local members' data (PMIX_GROUP_ENDPT_DATA). The daemons hosting members meet in a
// grpcomm allgather (collectives.cc, exchange()) keyed by the group id and the operation; the
// master issues the context id as it releases the result (one counter for the DVM's life, so an
// id is never issued twice), and every server gets the context id and every node's data back.
//
// PMIX_TIMEOUT: the DVM ends a construct or destruct that has not completed in time on every
// participating daemon (PMIX_ERR_TIMEOUT to each caller). PMIx 4.2.2 must not time it itself: it
// arms its timer once per calling member, and its server's thread then spins for ever, and its
// handler crashes a daemon whose members did not all call (pmix422/group_timeouts.c). So the
// repairs hand PMIx every group message with the key renamed PRTE_PMIX422_GROUP_TIMEOUT, which
// is what this upcall times, and time this node's part themselves until the upcall (some members
// here not called yet), answering those that called PMIX_ERR_TIMEOUT (timed_out_here()). Only
// with the repairs off does PMIX_TIMEOUT itself reach the upcall: the DVM then ends the operation
// a little before PMIx's timer (collectives.cc, time_limit()), and warns when several members are
// on this node.
//
// Error paths: the PMIx callback is called exactly once, from the progress thread, and only after
// the upcall has returned PMIX_SUCCESS. PMIx 4.2.2 records a group when the construct completes,
// whatever the status, and only a destruct removes that record, so a later construct of the same
// id on that node would never be handed to the host: the release after a failed construct drops
// it (pmix422/groups.c). A member that ends before it joins: process_ended.cc, and the survivors
// of a construct hear PMIX_GROUP_INVITE_FAILED first (tell_invite_failed()).
//
// PMIX_GROUP_OPTIONAL: such a member is left out instead. The DVM's collective is optional
// (grpcomm.h): it stops waiting for the nodes hosting nothing but ended members, and the master
// names those it left out. Each survivor hears PMIX_GROUP_INVITE_FAILED for each of them, then
// PMIX_GROUP_MEMBERSHIP_UPDATE with the members that remain, and its construct succeeds. On the
// node of an ended member, a construct its other members had called is handed over by
// pmix422/groups.c (PMIx 4.2.2 would keep it for ever). The group's destruct is over the members
// the construct kept (records.cc).
#include <pmix.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mca/grpcomm/base/grpcomm_base.h"
#include "pmix/info_array.h"
#include "pmix/internal.h"
#include "pmix/pmix422/repairs.h"
#include "rml/buffer.h"

namespace prte::pmix::detail {
namespace {

const char* operation_name(pmix_group_operation_t op)
{
    return op == PMIX_GROUP_CONSTRUCT ? "construct" : op == PMIX_GROUP_DESTRUCT ? "destruct" : "operation";
}

// The caller's seconds (PRTE_PMIX422_GROUP_TIMEOUT): PMIx has no timer on them, so the DVM's limit
// is the whole time (0: none).
std::chrono::milliseconds whole_seconds(const pmix_value_t& value)
{
    std::optional<int64_t> seconds = value_integer(value);
    if (!seconds || *seconds <= 0) return std::chrono::milliseconds{0};
    return std::chrono::seconds(std::min<int64_t>(*seconds, 86400 * 365));
}

std::string collective_id(const std::string& id, pmix_group_operation_t op);

// PMIx's thread (pmix422/group_timeouts.c): the operation was never handed to this daemon (some
// members here did not call) and its time is up; those that called are answered PMIX_ERR_TIMEOUT.
// The operation can no longer complete (they have left it), so it ends on every daemon now, with
// PMIX_ERR_TIMEOUT there too: else the others wait for their own time limit, or, should one of
// this node's callers end first, take it for a member that never called and fail with
// PMIX_ERR_PROC_TERMINATED_WITHOUT_SYNC.
void timed_out_here(const char* id, int construct, const pmix_proc_t* members, size_t nmembers, size_t callers,
                    unsigned seconds)
{
    post([id = std::string(id), construct, procs = copy_procs(members, nmembers), callers, seconds] {
        pmix_group_operation_t op = construct ? PMIX_GROUP_CONSTRUCT : PMIX_GROUP_DESTRUCT;
        verbose()(1, "group {} {}: not complete within the {} s its caller allowed (PMIX_TIMEOUT); {} caller(s) on "
                     "this node answered PMIX_ERR_TIMEOUT, others here had not called",
                  id, operation_name(op), seconds, callers);
        // The members the DVM's collective is over (run_group): a destruct's, those its construct kept.
        std::vector<pmix_proc_t> over = procs;
        if (auto kept = construct ? std::nullopt : optional_group_members(id)) over = std::move(*kept);
        if (grpcomm::Module* module = grpcomm::base::module()) {
            module->end_everywhere(signature(Collective{std::move(over), collective_id(id, op)}),
                                   {Errc::timed_out, fmt::format("not complete within the {} s its caller allowed "
                                                                 "(PMIX_TIMEOUT) on a node where some members had not called",
                                                                 seconds)});
        }
    });
}

// What PMIx holds until it has answered the members: our results, and its own tracker of the
// operation, which PMIx 4.2.2 never releases (pmix422/repairs.h). PMIx calls release_answer()
// on its thread once every member's reply is queued.
struct Answer {
    std::unique_ptr<InfoArray> results;
    void* tracker;
    std::string id;  // for the log
    pmix_group_operation_t op;
    bool failed;
};

void release_answer(void* cbdata)
{
    std::unique_ptr<Answer> answer(static_cast<Answer*>(cbdata));
    if (prte_pmix422_release_group_tracker(answer->tracker, answer->failed)) {
        verbose()(5, "group {} {}: PMIx's tracker of it released", answer->id, operation_name(answer->op));
    }
}

// What a construct hands back: the context id if one was asked for, and the member data of every
// node, as one PMIX_GROUP_ENDPT_DATA. Each node's PMIx server packed its members' data as a series
// of (kind, byte object) pairs, and PMIx 4.2.2's server reads such pairs until the end of the one
// PMIX_GROUP_ENDPT_DATA it takes (the last, if there are several): so the nodes' series, one after
// the other, give every member every other member's data without a direct modex.
Status construct_results(const rml::Payload& combined, bool want_context_id, uint64_t context_id, InfoArray& results)
{
    if (want_context_id) {
        if (context_id == 0) return {Errc::internal, "the master issued no context id"};
        results.add_size(PMIX_GROUP_CONTEXT_ID, context_id);
    }
    rml::Payload all;
    rml::Reader r(combined, "group member data");
    while (!r.at_end()) {
        rml::Payload blob = r.bytes();
        if (!r.ok()) return {Errc::internal, fmt::format("malformed member data: {}", r.error())};
        all.insert(all.end(), blob.begin(), blob.end());
    }
    if (!all.empty()) {
        pmix_byte_object_t bo;
        bo.bytes = reinterpret_cast<char*>(all.data());
        bo.size = all.size();
        results.add(PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);  // copied
    }
    return {};
}

struct GroupRequest {
    pmix_group_operation_t op;
    std::string id;
    bool want_context_id = false;
    bool notify_termination = false;
    bool optional = false;  // PMIX_GROUP_OPTIONAL
    std::optional<pmix_proc_t> leader;  // PMIX_GROUP_LEADER, when its caller is this node's first
    std::chrono::milliseconds time_limit{0};
    bool timed_by_pmix = false;  // PMIX_TIMEOUT reached PMIx (the repairs are off)
    rml::Payload endpoint_data;
    std::vector<pmix_proc_t> members;
    pmix_info_cbfunc_t cbfunc;
    void* cbdata;
};

// A member of no known job would never contribute: the construct fails at once rather than wait.
Status check_members(const std::vector<pmix_proc_t>& members)
{
    for (const pmix_proc_t& m : members) {
        if (!find_job(m.nspace)) {
            return {Errc::not_found, fmt::format("member {} names namespace '{}', which is no job of this DVM",
                                                 describe(m), m.nspace)};
        }
    }
    return {};
}

// Answers PMIx (once, progress thread) with its results (none for a failure).
void answer(const GroupRequest& req, pmix_status_t status, std::unique_ptr<InfoArray> results)
{
    if (!req.cbfunc) return;
    auto* held = new Answer{std::move(results), req.cbdata, req.id, req.op, status != PMIX_SUCCESS};
    pmix_info_t* info = held->results ? held->results->data() : nullptr;
    size_t ninfo = held->results ? held->results->size() : 0;
    req.cbfunc(status, info, ninfo, req.cbdata, release_answer, held);
}

// A collective cancelled here was aborted by a member (construct_aborted below).
void answer_error(const GroupRequest& req, const Status& why)
{
    verbose()(1, "group {} {} over {} failed: {}", req.id, operation_name(req.op), describe_all(req.members),
              why.message());
    answer(req, why.code() == Errc::cancelled ? PMIX_GROUP_CONSTRUCT_ABORT : to_pmix_status(why), nullptr);
}

std::string collective_id(const std::string& id, pmix_group_operation_t op)
{
    return fmt::format("group {} {}", id, operation_name(op));
}

// PMIx's thread: one construct of an aborted group on this node (prte_pmix422_abort_construct).
// Either way this daemon's part of the DVM's collective ends: the one under way fails, and answers
// its callers PMIX_GROUP_CONSTRUCT_ABORT; one never started here is counted as done. With no
// construct here at all, a member on this node (the one that aborted, say) may still be in it:
// the abort's custom range, when it names such members, stands for the group, so that this
// daemon counts the construct as done like the others.
void construct_aborted(const char* id, const pmix_proc_t* members, size_t nmembers, int handed, size_t callers,
                       void* arg, int last)
{
    std::unique_ptr<std::vector<pmix_proc_t>> range(last ? static_cast<std::vector<pmix_proc_t>*>(arg) : nullptr);
    std::vector<pmix_proc_t> procs = copy_procs(members, nmembers);
    if (handed < 0) {
        if (!range || range->empty()) return;
        procs = *range;
    }
    std::string what = handed > 0    ? std::string("ending the DVM's collective")
                       : handed == 0 ? fmt::format("{} caller(s) on this node answered", callers)
                                     : std::string("none under way on this node");
    Collective construct{std::move(procs), collective_id(id, PMIX_GROUP_CONSTRUCT)};
    bool started_here = handed > 0;
    bool none_here = handed < 0;
    post([id = std::string(id), what, construct, started_here, none_here] {
        if (none_here && count_here(construct.procs.data(), construct.procs.size()) == 0) return;
        verbose()(2, "group {} construct: aborted by a member (PMIX_GROUP_CONSTRUCT_ABORT); {}", id, what);
        if (grpcomm::Module* module = grpcomm::base::module()) {
            module->cancel(signature(construct), {Errc::cancelled, "a member aborted it (PMIX_GROUP_CONSTRUCT_ABORT)"},
                           started_here);
        }
    });
}

// The members but those left out (a left-out member of a whole job, PMIX_RANK_WILDCARD, is listed
// by rank: the job's other ranks remain).
std::vector<pmix_proc_t> without(const std::vector<pmix_proc_t>& members, const std::vector<pmix_proc_t>& left_out)
{
    if (left_out.empty()) return members;
    std::vector<pmix_proc_t> out;
    for (const pmix_proc_t& m : members) {
        if (m.rank != PMIX_RANK_WILDCARD) {
            if (!names(left_out, m)) out.push_back(m);
            continue;
        }
        for_each_member({m}, [&](const pmix_proc_t& p, const runtime::Proc&) {
            if (!names(left_out, p)) out.push_back(p);
        });
    }
    return out;
}

// RFC 0033: the survivors of an optional construct hear who was left out, then the membership.
// Each daemon raises both to its own members (see tell_invite_failed), before their construct
// returns.
void tell_membership(const std::string& id, const std::vector<pmix_proc_t>& left_out,
                     const std::vector<pmix_proc_t>& members)
{
    for (const pmix_proc_t& gone : left_out) tell_invite_failed(id, gone, nullptr, members.data(), members.size());
    auto info = std::make_unique<InfoArray>();
    info->add_string(PMIX_GROUP_ID, id);
    info->add_proc_array(PMIX_GROUP_MEMBERSHIP, members.data(), members.size());
    info->add_proc_array(PMIX_EVENT_CUSTOM_RANGE, members.data(), members.size());
    info->add_string(PMIX_EVENT_TEXT_MESSAGE,
                     fmt::format("group {}: constructed without {}, which ended before joining (PMIX_GROUP_OPTIONAL)",
                                 id, describe_all(left_out)));
    info->add_bool(PMIX_EVENT_NON_DEFAULT, true);
    info->add_bool(PMIX_EVENT_DO_NOT_CACHE, true);
    verbose()(2, "group {} construct: optional, completed without {}; telling this node's members "
                 "(PMIX_GROUP_MEMBERSHIP_UPDATE)", id, describe_all(left_out));
    notify_from_dvm(PMIX_GROUP_MEMBERSHIP_UPDATE, PMIX_RANGE_CUSTOM, std::move(info),
                    fmt::format("group {}'s new membership", id));
}

// Progress thread.
void run_group(std::shared_ptr<GroupRequest> req)
{
    const char* what = operation_name(req->op);
    if (Status st = check_members(req->members); !st) {
        answer_error(*req, st);
        return;
    }
    if (size_t here = count_here(req->members.data(), req->members.size()); req->timed_by_pmix && here > 1) {
        output::warning("group {} {}: PMIX_TIMEOUT with {} members on this node and the PMIx 4.2.2 repairs off ({}): "
                        "PMIx arms its timer once per member, and its server here may stop answering once that "
                        "time has passed; leave PMIX_TIMEOUT off groups with several members on a node",
                        req->id, what, here, prte_pmix422_repairs_state() ? prte_pmix422_repairs_state() : "?");
    }
    if (req->leader) declare_group_leader(req->id, *req->leader, req->members);
    if (req->op == PMIX_GROUP_DESTRUCT) {
        // PMIx names the members it was constructed over, those the construct left out included.
        if (auto kept = optional_group_members(req->id)) req->members = std::move(*kept);
        // RFC 0033: with PMIX_GROUP_NOTIFY_TERMINATION, a member that ended is told by an event
        // instead, and the destruct completes among the others.
        if (destruct_goes_on_without_ended(req->id)) req->optional = true;
    }
    Collective collective{req->members, collective_id(req->id, req->op), req->want_context_id, req->time_limit,
                          req->optional};
    // A member that leaves normally without calling must not leave the others waiting.
    collective.watch_normal_ends = true;
    rml::Writer w;
    w.bytes(req->endpoint_data);
    verbose()(5, "group {} {} over {}{}{}", req->id, what, describe_all(req->members),
              req->want_context_id ? ", context id wanted" : "", req->optional ? ", optional" : "");
    exchange(collective, w.take(), [req, what](const Status& st, rml::Payload combined, uint64_t context_id,
                                              const pmix_proc_t* ended, const std::vector<pmix_proc_t>& left_out) {
        if (ended && req->op == PMIX_GROUP_CONSTRUCT) {
            tell_invite_failed(req->id, *ended, nullptr, req->members.data(), req->members.size());
        }
        // PMIx forgets a group at its destruct whatever the outcome; so does the DVM.
        if (req->op == PMIX_GROUP_DESTRUCT) {
            group_destructed(req->id);
            group_unlisted(req->id);
        }
        auto results = std::make_unique<InfoArray>();
        Status outcome = st;
        if (outcome && req->op == PMIX_GROUP_CONSTRUCT) {
            outcome = construct_results(combined, req->want_context_id, context_id, *results);
        }
        if (!outcome) {
            if (req->op == PMIX_GROUP_CONSTRUCT) group_construct_ended(req->id);
            answer_error(*req, outcome);
            return;
        }
        std::vector<pmix_proc_t> members = without(req->members, left_out);
        if (req->op == PMIX_GROUP_CONSTRUCT) {
            // Before its leader is forgotten: a declared leader alone hears of those left out.
            if (!left_out.empty()) tell_membership(req->id, left_out, members);
            group_construct_ended(req->id);
            group_listed(req->id, members);
            if (req->notify_termination || req->optional) {
                group_constructed(req->id, members, req->notify_termination, req->optional);
            }
        }
        verbose()(5, "group {} {}: done{}{}", req->id, what,
                  context_id ? fmt::format(", context id {}", context_id) : std::string(),
                  left_out.empty() ? std::string() : fmt::format(", without {}", describe_all(left_out)));
        answer(*req, PMIX_SUCCESS, std::move(results));
    });
}

}  // namespace

void group_event_info(InfoArray& info, const std::string& id, const pmix_proc_t& ended, const pmix_proc_t members[],
                      size_t nmembers, const std::string& message)
{
    info.add_proc(PMIX_EVENT_AFFECTED_PROC, ended);
    info.add_string(PMIX_GROUP_ID, id);
    info.add_proc_array(PMIX_EVENT_CUSTOM_RANGE, members, nmembers);
    info.add_string(PMIX_EVENT_TEXT_MESSAGE, message);
    info.add_bool(PMIX_EVENT_NON_DEFAULT, true);
    info.add_bool(PMIX_EVENT_DO_NOT_CACHE, true);
}

void raise_group_failure(pmix_status_t code, const std::string& id, const pmix_proc_t& ended,
                         const std::vector<pmix_proc_t>& to, const std::string& message)
{
    InfoArray info;
    group_event_info(info, id, ended, to.data(), to.size(), message);
    verbose()(2, "{}; telling {} ({})", message, describe_all(to), PMIx_Error_string(code));
    if (!raise_everywhere(code, ended, PMIX_RANGE_CUSTOM, info)) {
        verbose()(1, "group {}: cannot raise {}: its info cannot be packed", id, PMIx_Error_string(code));
    }
}

bool names(const std::vector<pmix_proc_t>& procs, const pmix_proc_t& proc)
{
    return std::any_of(procs.begin(), procs.end(), [&](const pmix_proc_t& p) { return PMIX_CHECK_PROCID(&p, &proc); });
}

// RFC 0033: the leader, or every participant when none is declared, hears of a member that ended
// before it joined, with PMIX_EVENT_AFFECTED_PROC naming it. An event the DVM raises is delivered
// by this node's server only (event_relay.cc): without a leader each daemon whose members were
// answered raises it once, with every member as its custom range, so each member hears it once;
// with one, only the leader's daemon raises it, to the leader.
void tell_invite_failed(const std::string& id, const pmix_proc_t& ended, const pmix_proc_t* leader,
                        const pmix_proc_t members[], size_t nmembers)
{
    if (!server_running() || nmembers == 0) return;
    std::optional<pmix_proc_t> declared = leader ? std::optional<pmix_proc_t>(*leader) : group_leader(id);
    if (declared && count_here(&*declared, 1) == 0) return;  // its own daemon tells it
    if (declared) {
        members = &*declared;
        nmembers = 1;
    }
    auto info = std::make_unique<InfoArray>();
    group_event_info(*info, id, ended, members, nmembers,
                     fmt::format("group {}: member {} ended before it joined the construct", id, describe(ended)));
    verbose()(2, "group {} construct: telling {} that {} ended before it joined", id,
              declared ? fmt::format("its leader {}", describe(*declared)) : std::string("this node's members"),
              describe(ended));
    notify_from_dvm(PMIX_GROUP_INVITE_FAILED, PMIX_RANGE_CUSTOM, std::move(info),
                    fmt::format("group {}'s members of {}'s end", id, describe(ended)));
}

void abort_construct(const std::string& id, const std::vector<pmix_proc_t>& range)
{
    auto* arg = new std::vector<pmix_proc_t>(range);
    if (!prte_pmix422_abort_construct(id.c_str(), PMIX_GROUP_CONSTRUCT_ABORT, construct_aborted, arg)) {
        delete arg;
        verbose()(1, "group {}: PMIX_GROUP_CONSTRUCT_ABORT not applied: {}", id,
                  prte_pmix422_repairs_state() ? prte_pmix422_repairs_state() : "PMIx's event base refused it");
    }
}

pmix_status_t group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[], size_t nprocs,
                    const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void* cbdata)
{
    std::string id = grp ? grp : "";
    if (has_flag(directives, ndirs, PMIX_GROUP_LOCAL_ONLY)) {
        verbose()(5, "group {} {}: local, completed by PMIx", id, operation_name(op));
        std::vector<pmix_proc_t> members(procs, procs + nprocs);
        post([op, id, members = std::move(members)] {
            if (op == PMIX_GROUP_CONSTRUCT) group_listed(id, members);
            if (op == PMIX_GROUP_DESTRUCT) group_unlisted(id);
        });
        return PMIX_OPERATION_SUCCEEDED;
    }
    auto req = std::make_shared<GroupRequest>();
    req->op = op;
    req->id = id;
    req->want_context_id = op == PMIX_GROUP_CONSTRUCT && has_flag(directives, ndirs, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    req->notify_termination = op == PMIX_GROUP_CONSTRUCT && has_flag(directives, ndirs, PMIX_GROUP_NOTIFY_TERMINATION);
    req->optional = has_flag(directives, ndirs, PMIX_GROUP_OPTIONAL);
    if (const pmix_info_t* e = find_info(directives, ndirs, PMIX_GROUP_ENDPT_DATA);
        e && e->value.type == PMIX_BYTE_OBJECT && e->value.data.bo.bytes) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(e->value.data.bo.bytes);
        req->endpoint_data.assign(bytes, bytes + e->value.data.bo.size);
    }
    if (const pmix_info_t* t = find_info(directives, ndirs, PRTE_PMIX422_GROUP_TIMEOUT)) {
        req->time_limit = whole_seconds(t->value);
    } else {
        req->time_limit = time_limit(directives, ndirs);
        req->timed_by_pmix = req->time_limit.count() > 0;
    }
    req->members = copy_procs(procs, nprocs);
    req->cbfunc = cbfunc;
    req->cbdata = cbdata;
    if (pmix_proc_t leader; op == PMIX_GROUP_CONSTRUCT && prte_pmix422_group_leader(cbdata, &leader)) req->leader = leader;
    prte_pmix422_group_handed_to_host(cbdata);
    post([req] { run_group(req); });
    return PMIX_SUCCESS;
}

void time_group_operations()
{
    if (prte_pmix422_time_group_operations(timed_out_here)) {
        verbose()(5, "group PMIX_TIMEOUT timed by the DVM: PMIx 4.2.2 never sees it");
    } else if (!prte_pmix422_repairs_state()) {
        output::warning("the PMIx 4.2.2 repairs could not take PMIX_TIMEOUT of group operations from PMIx (its "
                        "handler of client messages was not found): a group with PMIX_TIMEOUT and several members "
                        "on a node may leave this daemon's PMIx server unresponsive");
    }
}

}  // namespace prte::pmix::detail
