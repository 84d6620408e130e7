// group: PMIx groups of all the job's ranks. Every rank constructs the group (with a context id
// unless --no-context-id) and destructs it, --repeat N times, each time under its own id
// ("<id>-<i>" when repeating); each construct prints "group ok rank R iter I ctxid C" (C is -1
// without a context id), so that the test can check that every member got the same id and that
// no id was issued twice.
//   --id ID         the group id (default prte-test-group)
//   --by-rank       the job's ranks are listed one by one, not as the whole job (PMIX_RANK_WILDCARD:
//                   PMIx 4.2.2 completes such a construct without a context id on each node alone)
//   --member NS:R   one more member, a process of another job (R may be *): a group of two jobs;
//                   the construct starts once the DVM lists that job (PMIX_QUERY_NAMESPACES), as a
//                   construct naming a namespace that is no job yet fails at once (a namespace
//                   starting "no-such-" is not waited for)
//   --put-get       each rank puts "NS:RANK" under prte.test.group (and commits) before the first
//                   construct; after it, reads every other member's value (a whole job's size from
//                   its job-level information) and prints "group data rank R: N value(s) of M job(s)"
//   --timeout S     PMIX_TIMEOUT for the construct
//   --destruct-timeout S  PMIX_TIMEOUT for the destruct; a refused destruct then also prints
//                   "group destruct took rank R: N ms" (from its call to its return)
//   --simultaneous ID2  two constructs over the same members at once (RFC 0033: "multiple
//                   simultaneous group construct operations ... so long as each is provided with a
//                   unique group ID"): each rank starts PMIx_Group_construct_nb of --id and of ID2,
//                   even ranks --id first, odd ranks ID2 first, both with a context id, and waits (at
//                   most 60 s) for both; prints "group simultaneous rank R group G ctxid C" for each
//                   (or "group simultaneous rank R group G failed: <status>", or "... not answered").
//                   Then destructs both the same way ("group simultaneous destructed rank R group G")
//   --late-rank R   rank R does not construct: it waits (at most 120 s) to be killed
//   --late-until F  ... or, with this, until file F exists, and then leaves normally
//   --late-in-destruct  ... rank R constructs, and waits instead of destructing
//   --call-after F  the other ranks construct only once file F exists (at most 120 s): after the
//                   late rank has been killed, say
//   --expect-error  the construct (or, with --late-in-destruct, the destruct) must fail; prints
//                   "group refused rank R: <status>" (or "group destruct refused ...") and exits 0.
//                   A construct's failure then waits (at most 10 s) for PMIX_GROUP_INVITE_FAILED,
//                   printing "group invite failed rank R: member NS:RANK group ID" as each arrives,
//                   or "group no invite-failed event rank R" if none came
//   --retry         with --expect-error: after its construct failed, each rank constructs the same
//                   group again (with a context id, no time limit), the late rank too once
//                   --late-until's file exists, and prints "group ok rank R iter 0 ctxid C"
//   --leader R      rank R constructs with PMIX_GROUP_LEADER; every rank prints "group rank R pid P"
//                   first, and registers for PMIX_GROUP_LEADER_FAILED ("group leader failed rank R:
//                   ...", as below)
//   --after-leader-failed  with --late-rank: the late rank waits (at most 20 s) for
//                   PMIX_GROUP_LEADER_FAILED instead, then constructs; after the construct every
//                   rank destructs, prints "group destruct rank R: <status>" and exits 0
//   --abort-rank R  rank R does not construct: once --late-until's file exists (at most 120 s) it
//                   raises PMIX_GROUP_CONSTRUCT_ABORT for the group (custom range: the members) and
//                   prints "group abort raised rank R"; the others' construct must fail, printing
//                   "group refused rank R: <status>". Then every rank fences and constructs and
//                   destructs the same group again (with a context id), printing "group ok ..."
//   --optional      constructs with PMIX_GROUP_OPTIONAL: a late rank killed before it joins is left
//                   out. Each PMIX_GROUP_INVITE_FAILED prints as under --expect-error; after the
//                   construct, each rank waits (at most 10 s) for PMIX_GROUP_MEMBERSHIP_UPDATE and
//                   prints "group membership rank R: group ID members NS:RANK,..." (or "group no
//                   membership event rank R"), then destructs as usual ("group ok ...")
//   --notify-termination  constructs with PMIX_GROUP_NOTIFY_TERMINATION; after the destruct (with a
//                   late rank), or its failure, waits (at most 10 s) for PMIX_GROUP_MEMBER_FAILED in
//                   the same way ("group member failed rank R: ...", or "group no member-failed
//                   event rank R")
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <mutex>
#include <string>
#include <vector>

#include "client_util.h"

namespace {

const char* program = "group";

struct Options {
    std::string id = "prte-test-group";
    int repeat = 1;
    bool context_id = true;
    bool expect_error = false;
    int timeout = 0;
    int destruct_timeout = 0;
    std::string simultaneous;
    long late_rank = -1;
    std::string late_until;
    std::string call_after;
    bool late_in_destruct = false;
    bool notify_termination = false;
    bool optional = false;
    long leader = -1;
    bool after_leader_failed = false;
    long abort_rank = -1;
    bool by_rank = false;
    bool put_get = false;
    bool retry = false;
    std::vector<pmix_proc_t> extra;
};

pmix_proc_t parse_member(const char* text)
{
    const char* colon = std::strrchr(text, ':');
    if (!colon || colon == text) prte_test::fail(program, "--member %s: expected NSPACE:RANK", text);
    std::string nspace(text, colon - text);
    pmix_proc_t p;
    pmix_rank_t rank = std::strcmp(colon + 1, "*") == 0 ? PMIX_RANK_WILDCARD
                                                      : static_cast<pmix_rank_t>(std::strtoul(colon + 1, nullptr, 10));
    PMIX_LOAD_PROCID(&p, nspace.c_str(), rank);
    return p;
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--id" && i + 1 < argc) {
            o.id = argv[++i];
        } else if (a == "--repeat" && i + 1 < argc) {
            o.repeat = std::atoi(argv[++i]);
            if (o.repeat < 1) prte_test::fail(program, "--repeat %s: expected a positive number", argv[i]);
        } else if (a == "--member" && i + 1 < argc) {
            o.extra.push_back(parse_member(argv[++i]));
        } else if (a == "--no-context-id") {
            o.context_id = false;
        } else if (a == "--late-rank" && i + 1 < argc) {
            o.late_rank = std::atol(argv[++i]);
        } else if (a == "--late-until" && i + 1 < argc) {
            o.late_until = argv[++i];
        } else if (a == "--call-after" && i + 1 < argc) {
            o.call_after = argv[++i];
        } else if (a == "--late-in-destruct") {
            o.late_in_destruct = true;
        } else if (a == "--timeout" && i + 1 < argc) {
            o.timeout = std::atoi(argv[++i]);
        } else if (a == "--destruct-timeout" && i + 1 < argc) {
            o.destruct_timeout = std::atoi(argv[++i]);
        } else if (a == "--simultaneous" && i + 1 < argc) {
            o.simultaneous = argv[++i];
        } else if (a == "--leader" && i + 1 < argc) {
            o.leader = std::atol(argv[++i]);
        } else if (a == "--retry") {
            o.retry = true;
        } else if (a == "--put-get") {
            o.put_get = true;
        } else if (a == "--by-rank") {
            o.by_rank = true;
        } else if (a == "--abort-rank" && i + 1 < argc) {
            o.abort_rank = std::atol(argv[++i]);
        } else if (a == "--after-leader-failed") {
            o.after_leader_failed = true;
        } else if (a == "--optional") {
            o.optional = true;
        } else if (a == "--notify-termination") {
            o.notify_termination = true;
        } else if (a == "--expect-error") {
            o.expect_error = true;
        } else {
            prte_test::fail(program, "unknown argument '%s'", argv[i]);
        }
    }
    return o;
}

long long context_id_of(const pmix_info_t* results, size_t nresults)
{
    long long context_id = -1;
    for (size_t i = 0; i < nresults; ++i) {
        int64_t v;
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID) && prte_test::value_to_integer(&results[i].value, v)) {
            context_id = v;
        }
    }
    return context_id;
}

bool namespace_known(const char* nspace)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_status_t rc = PMIX_SUCCESS;
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NAMESPACES);
    pmix_info_t* results = nullptr;
    size_t n = 0;
    rc = PMIx_Query_info(&q, 1, &results, &n);
    bool found = false;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_QUERY_NAMESPACES) && results[i].value.type == PMIX_STRING) {
            std::string list = std::string(",") + results[i].value.data.string + ",";
            found = list.find(std::string(",") + nspace + ",") != std::string::npos;
        }
    }
    if (results) PMIX_INFO_FREE(results, n);
    PMIX_QUERY_DESTRUCT(&q);
    return found;
}

// Waits (at most 30 s) until the DVM lists every other job named as a member.
void wait_for_jobs(const std::vector<pmix_proc_t>& extra)
{
    for (const pmix_proc_t& p : extra) {
        if (std::strncmp(p.nspace, "no-such-", 8) == 0) continue;
        int tries = 0;
        while (!namespace_known(p.nspace)) {
            if (++tries > 600) prte_test::fail(program, "job %s did not appear within 30 s", p.nspace);
            usleep(50000);
        }
    }
}

const char* kDataKey = "prte.test.group";

std::string name_of(const pmix_proc_t& p) { return std::string(p.nspace) + ":" + std::to_string(p.rank); }

void put_my_name(const pmix_proc_t& me)
{
    pmix_value_t value;
    std::string mine = name_of(me);
    PMIX_VALUE_LOAD(&value, mine.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, kDataKey, &value);
    PMIX_VALUE_DESTRUCT(&value);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Put/Commit failed: %s", me.rank, PMIx_Error_string(rc));
}

// After the construct: every other member's value, a whole job's ranks counted from its size.
void read_members_data(const std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    size_t values = 0, jobs = 0;
    for (const pmix_proc_t& m : members) {
        pmix_rank_t first = m.rank, last = m.rank;
        if (m.rank == PMIX_RANK_WILDCARD) {
            first = 0;
            last = static_cast<pmix_rank_t>(prte_test::get_integer(program, &m, PMIX_JOB_SIZE)) - 1;
            ++jobs;
        }
        for (pmix_rank_t r = first; r <= last; ++r) {
            pmix_proc_t peer;
            PMIX_LOAD_PROCID(&peer, m.nspace, r);
            if (PMIX_CHECK_PROCID(&peer, &me)) continue;
            pmix_value_t* got = nullptr;
            pmix_status_t rc = PMIx_Get(&peer, kDataKey, nullptr, 0, &got);
            if (rc != PMIX_SUCCESS || !got) {
                prte_test::fail(program, "rank %u: PMIx_Get of %s's value failed: %s", me.rank, name_of(peer).c_str(),
                                PMIx_Error_string(rc));
            }
            if (got->type != PMIX_STRING || !got->data.string || name_of(peer) != got->data.string) {
                prte_test::fail(program, "rank %u: %s's value is not its name", me.rank, name_of(peer).c_str());
            }
            PMIX_VALUE_RELEASE(got);
            ++values;
        }
    }
    std::printf("group data rank %u: %zu value(s) of %zu job(s)\n", me.rank, values, jobs);
    std::fflush(stdout);
}

// PMIX_GROUP_INVITE_FAILED and PMIX_GROUP_MEMBER_FAILED, as they arrive.
std::atomic<int> group_events{0};
pmix_rank_t my_rank = PMIX_RANK_UNDEF;

const char* event_name(pmix_status_t code)
{
    return code == PMIX_GROUP_INVITE_FAILED ? "invite" : code == PMIX_GROUP_LEADER_FAILED ? "leader" : "member";
}

void on_group_event(size_t, pmix_status_t code, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*,
                    size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string member = "?", group = "?";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            const pmix_proc_t* p = info[i].value.data.proc;
            member = std::string(p->nspace) + ":" + std::to_string(p->rank);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            group = info[i].value.data.string;
        }
    }
    std::printf("group %s failed rank %u: member %s group %s\n", event_name(code), my_rank, member.c_str(),
                group.c_str());
    std::fflush(stdout);
    ++group_events;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void register_for(pmix_status_t code)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, nullptr, 0, on_group_event, nullptr, nullptr);
    if (rc < 0) prte_test::fail(program, "cannot register for %s: %s", PMIx_Error_string(code), PMIx_Error_string(rc));
}

// PMIX_GROUP_MEMBERSHIP_UPDATE: the members an optional construct kept.
std::atomic<int> membership_events{0};

void on_membership(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*, size_t,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string members = "?", group = "?";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP) && info[i].value.type == PMIX_DATA_ARRAY &&
            info[i].value.data.darray && info[i].value.data.darray->type == PMIX_PROC) {
            const auto* procs = static_cast<const pmix_proc_t*>(info[i].value.data.darray->array);
            members.clear();
            for (size_t n = 0; n < info[i].value.data.darray->size; ++n) {
                members += (n ? "," : "") + std::string(procs[n].nspace) + ":" + std::to_string(procs[n].rank);
            }
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            group = info[i].value.data.string;
        }
    }
    std::printf("group membership rank %u: group %s members %s\n", my_rank, group.c_str(), members.c_str());
    std::fflush(stdout);
    ++membership_events;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

// The DVM raises the event before it answers the call, but the client library may run the
// handler on its own thread just after the call has returned.
void wait_for_group_event(const pmix_proc_t& me, pmix_status_t code, int seconds = 10)
{
    for (int hundredths = 0; hundredths < seconds * 100 && group_events.load() == 0; ++hundredths) usleep(10000);
    if (group_events.load() == 0) {
        std::printf("group no %s-failed event rank %u\n", event_name(code), me.rank);
        std::fflush(stdout);
    }
}

void construct_and_destruct(const std::string& id, std::vector<pmix_proc_t>& members, const pmix_proc_t& me);

// --retry: the same group again, which must succeed now that every member calls.
[[noreturn]] void construct_again(const std::string& id, std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    construct_and_destruct(id, members, me);
    prte_test::finalize(program);
    std::exit(0);
}

// The late rank: waits (at most 120 s) to be killed, or until --late-until's file exists (and then
// leaves, or with --retry constructs).
void wait_as_late_rank(const Options& o, std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    std::printf("group late rank %u waits, pid %ld\n", me.rank, static_cast<long>(getpid()));
    std::fflush(stdout);
    for (int tenths = 0; tenths < 1200; ++tenths) {
        if (!o.late_until.empty() && access(o.late_until.c_str(), F_OK) == 0) {
            if (o.retry) construct_again(o.id, members, me);
            prte_test::finalize(program);
            std::exit(0);
        }
        usleep(100000);
    }
    prte_test::fail(program, "rank %u: still alive after 120 s", me.rank);
}

// A construct and destruct with a context id, which must succeed: "group ok rank R iter 0 ctxid C".
void construct_and_destruct(const std::string& id, std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    pmix_info_t directive;
    bool yes = true;
    PMIX_INFO_LOAD(&directive, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Group_construct(id.c_str(), members.data(), members.size(), &directive, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&directive);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Group_construct(%s) failed: %s", me.rank, id.c_str(), PMIx_Error_string(rc));
    long long context_id = context_id_of(results, nresults);
    if (results) PMIX_INFO_FREE(results, nresults);
    rc = PMIx_Group_destruct(id.c_str(), nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Group_destruct(%s) failed: %s", me.rank, id.c_str(), PMIx_Error_string(rc));
    std::printf("group ok rank %u iter 0 ctxid %lld\n", me.rank, context_id);
    std::fflush(stdout);
}

// --abort-rank: one rank aborts the others' construct, then all build another group.
int run_abort_case(const Options& o, std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    if (o.abort_rank == static_cast<long>(me.rank)) {
        for (int tenths = 0; tenths < 1200 && access(o.late_until.c_str(), F_OK) != 0; ++tenths) usleep(100000);
        pmix_info_t info[2];
        pmix_data_array_t range{PMIX_PROC, members.size(), members.data()};
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
        PMIX_INFO_LOAD(&info[1], PMIX_GROUP_ID, o.id.c_str(), PMIX_STRING);
        pmix_status_t rc = PMIx_Notify_event(PMIX_GROUP_CONSTRUCT_ABORT, &me, PMIX_RANGE_CUSTOM, info, 2, nullptr, nullptr);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
            prte_test::fail(program, "cannot raise PMIX_GROUP_CONSTRUCT_ABORT: %s", PMIx_Error_string(rc));
        }
        std::printf("group abort raised rank %u\n", me.rank);
        std::fflush(stdout);
    } else {
        // With a context id: PMIx 4.2.2 completes a construct over a whole job (PMIX_RANK_WILDCARD)
        // that asks for none on each node at once, without the DVM (docs/user-guide.md).
        pmix_info_t directive;
        bool yes = true;
        PMIX_INFO_LOAD(&directive, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        pmix_info_t* results = nullptr;
        size_t nresults = 0;
        pmix_status_t rc = PMIx_Group_construct(o.id.c_str(), members.data(), members.size(), &directive, 1, &results, &nresults);
        PMIX_INFO_DESTRUCT(&directive);
        if (results) PMIX_INFO_FREE(results, nresults);
        if (rc == PMIX_SUCCESS) prte_test::fail(program, "rank %u: the construct of %s succeeded", me.rank, o.id.c_str());
        std::printf("group refused rank %u: %s\n", me.rank, PMIx_Error_string(rc));
        std::fflush(stdout);
    }
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (pmix_status_t rc = PMIx_Fence(&all, 1, nullptr, 0); rc != PMIX_SUCCESS) {
        prte_test::fail(program, "rank %u: fence after the abort: %s", me.rank, PMIx_Error_string(rc));
    }
    construct_and_destruct(o.id, members, me);
    prte_test::finalize(program);
    return 0;
}

// One non-blocking construct or destruct of --simultaneous, answered on PMIx's thread.
struct Pending {
    std::string id;
    bool answered = false;
    pmix_status_t status = PMIX_SUCCESS;
    long long context_id = -1;
};
std::mutex pending_lock;
std::condition_variable pending_changed;

void constructed(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* cbdata, pmix_release_cbfunc_t release,
                 void* release_data)
{
    auto* p = static_cast<Pending*>(cbdata);
    {
        std::lock_guard<std::mutex> hold(pending_lock);
        p->status = status;
        p->context_id = context_id_of(info, ninfo);
        p->answered = true;
    }
    pending_changed.notify_all();
    if (release) release(release_data);
}

void destructed(pmix_status_t status, void* cbdata)
{
    auto* p = static_cast<Pending*>(cbdata);
    {
        std::lock_guard<std::mutex> hold(pending_lock);
        p->status = status;
        p->answered = true;
    }
    pending_changed.notify_all();
}

// Waits (at most 60 s in all) for both; prints each outcome; whether both succeeded.
bool wait_for_both(Pending (&ops)[2], const pmix_proc_t& me, const char* done)
{
    std::unique_lock<std::mutex> hold(pending_lock);
    pending_changed.wait_for(hold, std::chrono::seconds(60), [&] { return ops[0].answered && ops[1].answered; });
    bool ok = true;
    for (const Pending& p : ops) {
        if (!p.answered) {
            std::printf("group simultaneous rank %u group %s not answered\n", me.rank, p.id.c_str());
            ok = false;
        } else if (p.status != PMIX_SUCCESS) {
            std::printf("group simultaneous rank %u group %s failed: %s\n", me.rank, p.id.c_str(), PMIx_Error_string(p.status));
            ok = false;
        } else if (done) {
            std::printf("group simultaneous %s rank %u group %s\n", done, me.rank, p.id.c_str());
        } else {
            std::printf("group simultaneous rank %u group %s ctxid %lld\n", me.rank, p.id.c_str(), p.context_id);
        }
    }
    std::fflush(stdout);
    return ok;
}

// --simultaneous: two constructs over the same members, issued together, in opposite orders on
// even and odd ranks (blocking calls in opposite orders would deadlock in the application itself).
int run_simultaneous(const Options& o, std::vector<pmix_proc_t>& members, const pmix_proc_t& me)
{
    Pending ops[2];
    ops[0].id = me.rank % 2 == 0 ? o.id : o.simultaneous;
    ops[1].id = me.rank % 2 == 0 ? o.simultaneous : o.id;
    pmix_info_t directive;
    bool yes = true;
    PMIX_INFO_LOAD(&directive, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    for (Pending& p : ops) {
        pmix_status_t rc = PMIx_Group_construct_nb(p.id.c_str(), members.data(), members.size(), &directive, 1,
                                                   constructed, &p);
        if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Group_construct_nb(%s): %s", me.rank, p.id.c_str(), PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&directive);
    if (!wait_for_both(ops, me, nullptr)) prte_test::fail(program, "rank %u: the simultaneous constructs did not both succeed", me.rank);
    {
        std::lock_guard<std::mutex> hold(pending_lock);
        for (Pending& p : ops) p.answered = false;
    }
    for (Pending& p : ops) {
        pmix_status_t rc = PMIx_Group_destruct_nb(p.id.c_str(), nullptr, 0, destructed, &p);
        if (rc != PMIX_SUCCESS) prte_test::fail(program, "rank %u: PMIx_Group_destruct_nb(%s): %s", me.rank, p.id.c_str(), PMIx_Error_string(rc));
    }
    if (!wait_for_both(ops, me, "destructed")) prte_test::fail(program, "rank %u: the simultaneous destructs did not both succeed", me.rank);
    prte_test::finalize(program);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    Options o = parse(argc, argv);
    pmix_proc_t me = prte_test::init(program);
    std::vector<pmix_proc_t> members(1);
    PMIX_LOAD_PROCID(&members[0], me.nspace, PMIX_RANK_WILDCARD);
    if (o.by_rank) {
        auto size = static_cast<pmix_rank_t>(prte_test::get_integer(program, &members[0], PMIX_JOB_SIZE));
        members.resize(size);
        for (pmix_rank_t r = 0; r < size; ++r) PMIX_LOAD_PROCID(&members[r], me.nspace, r);
    }
    members.insert(members.end(), o.extra.begin(), o.extra.end());
    wait_for_jobs(o.extra);
    my_rank = me.rank;
    if (o.abort_rank >= 0) return run_abort_case(o, members, me);
    if (!o.simultaneous.empty()) return run_simultaneous(o, members, me);
    bool late = o.late_rank == static_cast<long>(me.rank);
    if ((o.expect_error && !o.late_in_destruct) || o.optional) register_for(PMIX_GROUP_INVITE_FAILED);
    if (o.optional) {
        pmix_status_t code = PMIX_GROUP_MEMBERSHIP_UPDATE;
        pmix_status_t rc = PMIx_Register_event_handler(&code, 1, nullptr, 0, on_membership, nullptr, nullptr);
        if (rc < 0) prte_test::fail(program, "cannot register for PMIX_GROUP_MEMBERSHIP_UPDATE: %s", PMIx_Error_string(rc));
    }
    if (o.notify_termination) register_for(PMIX_GROUP_MEMBER_FAILED);
    if (o.leader >= 0) {
        register_for(PMIX_GROUP_LEADER_FAILED);
        std::printf("group rank %u pid %ld\n", me.rank, static_cast<long>(getpid()));
        std::fflush(stdout);
    }
    if (late && o.after_leader_failed) {
        wait_for_group_event(me, PMIX_GROUP_LEADER_FAILED, 20);
    } else if (late && !o.late_in_destruct) {
        wait_as_late_rank(o, members, me);
    }
    if (o.put_get) put_my_name(me);
    if (!o.call_after.empty()) {
        for (int tenths = 0; tenths < 1200 && access(o.call_after.c_str(), F_OK) != 0; ++tenths) usleep(100000);
        if (access(o.call_after.c_str(), F_OK) != 0) prte_test::fail(program, "%s did not appear in 120 s", o.call_after.c_str());
    }

    for (int iter = 0; iter < o.repeat; ++iter) {
        std::string id = o.repeat == 1 ? o.id : o.id + "-" + std::to_string(iter);
        std::vector<pmix_info_t> directives;
        bool yes = true;
        if (o.context_id) {
            directives.emplace_back();
            PMIX_INFO_LOAD(&directives.back(), PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        }
        if (o.notify_termination) {
            directives.emplace_back();
            PMIX_INFO_LOAD(&directives.back(), PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
        }
        if (o.optional) {
            directives.emplace_back();
            PMIX_INFO_LOAD(&directives.back(), PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
        }
        if (o.leader == static_cast<long>(me.rank)) {
            directives.emplace_back();
            PMIX_INFO_LOAD(&directives.back(), PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
        }
        if (o.timeout > 0) {
            directives.emplace_back();
            PMIX_INFO_LOAD(&directives.back(), PMIX_TIMEOUT, &o.timeout, PMIX_INT);
        }
        pmix_info_t* results = nullptr;
        size_t nresults = 0;
        pmix_status_t rc = PMIx_Group_construct(id.c_str(), members.data(), members.size(), directives.data(),
                                                directives.size(), &results, &nresults);
        for (auto& d : directives) PMIX_INFO_DESTRUCT(&d);
        if (o.expect_error && !o.late_in_destruct) {
            if (rc == PMIX_SUCCESS) prte_test::fail(program, "rank %u: the construct of %s succeeded", me.rank, id.c_str());
            std::printf("group refused rank %u: %s\n", me.rank, PMIx_Error_string(rc));
            std::fflush(stdout);
            if (o.retry) construct_again(id, members, me);
            wait_for_group_event(me, PMIX_GROUP_INVITE_FAILED);
            prte_test::finalize(program);
            return 0;
        }
        if (rc != PMIX_SUCCESS) {
            prte_test::fail(program, "rank %u: PMIx_Group_construct(%s) failed: %s", me.rank, id.c_str(),
                            PMIx_Error_string(rc));
        }
        long long context_id = context_id_of(results, nresults);
        if (results) PMIX_INFO_FREE(results, nresults);
        if (o.context_id && context_id < 0) prte_test::fail(program, "rank %u: the group has no context id", me.rank);
        if (o.put_get && iter == 0) read_members_data(members, me);
        if (o.optional) {
            for (int hundredths = 0; hundredths < 1000 && membership_events.load() == 0; ++hundredths) usleep(10000);
            if (membership_events.load() == 0) {
                std::printf("group no membership event rank %u\n", me.rank);
                std::fflush(stdout);
            }
        }

        if (late && !o.after_leader_failed) wait_as_late_rank(o, members, me);
        pmix_info_t destruct_timeout;
        PMIX_INFO_LOAD(&destruct_timeout, PMIX_TIMEOUT, &o.destruct_timeout, PMIX_INT);
        auto destruct_start = std::chrono::steady_clock::now();
        rc = PMIx_Group_destruct(id.c_str(), o.destruct_timeout > 0 ? &destruct_timeout : nullptr,
                                 o.destruct_timeout > 0 ? 1 : 0);
        auto destruct_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                                 destruct_start).count();
        PMIX_INFO_DESTRUCT(&destruct_timeout);
        if (o.after_leader_failed) {
            std::printf("group destruct rank %u: %s\n", me.rank, PMIx_Error_string(rc));
            std::fflush(stdout);
            prte_test::finalize(program);
            return 0;
        }
        if (o.expect_error) {
            if (rc == PMIX_SUCCESS) prte_test::fail(program, "rank %u: the destruct of %s succeeded", me.rank, id.c_str());
            std::printf("group destruct refused rank %u: %s\n", me.rank, PMIx_Error_string(rc));
            if (o.destruct_timeout > 0) std::printf("group destruct took rank %u: %lld ms\n", me.rank, static_cast<long long>(destruct_ms));
            std::fflush(stdout);
            if (o.notify_termination) wait_for_group_event(me, PMIX_GROUP_MEMBER_FAILED);
            prte_test::finalize(program);
            return 0;
        }
        if (rc != PMIX_SUCCESS) {
            prte_test::fail(program, "rank %u: PMIx_Group_destruct(%s) failed: %s", me.rank, id.c_str(),
                            PMIx_Error_string(rc));
        }
        // RFC 0033: the destruct completed without a member that ended, told by the event instead.
        if (o.notify_termination && o.late_rank >= 0) wait_for_group_event(me, PMIX_GROUP_MEMBER_FAILED);
        std::printf("group ok rank %u iter %d ctxid %lld\n", me.rank, iter, context_id);
        std::fflush(stdout);
    }
    prte_test::finalize(program);
    return 0;
}
