// invite: the asynchronous PMIx group of RFC 0033. Rank 0, the leader, invites every rank
// (PMIx_Group_invite, on a thread) to group --id; the others join (PMIx_Group_join, accept) when the
// PMIX_GROUP_INVITED event arrives. Each rank prints one line per group event it hears:
//   "invite event rank R: <event> member NS:RANK group G"   (member: PMIX_EVENT_AFFECTED_PROC, or -)
// and the leader "invite done rank 0: <status>" when its invite completes. Then:
//   (default)           every rank waits (at most 20 s) for PMIX_GROUP_CONSTRUCT_COMPLETE
//   --late-invitee R    rank R does not answer: it prints "invite late rank R waits, pid P" and
//                       waits (at most 120 s) to be killed. The leader waits (at most 20 s) for
//                       PMIX_GROUP_INVITE_FAILED, then aborts the construct by raising
//                       PMIX_GROUP_CONSTRUCT_ABORT to the invitees, who wait for it (at most 20 s)
//   --decliner R        rank R declines (PMIx_Group_join with PMIX_GROUP_DECLINE) and prints "invite rank
//                       R declines". The leader, whose handler for PMIX_GROUP_INVITE_DECLINED is
//                       registered for that code alone (so that it runs before the one PMIx 4.2.2's
//                       invite registers, which ends the event chain), waits (at most 20 s) for it
//                       (the decliner as its member), then aborts the construct as above; the
//                       invitees wait for the abort (at most 20 s)
//   --late-leader       the leader prints "invite late rank 0 waits, pid P" once it has invited
//                       and waits to be killed; the last rank does not answer it, so the group is
//                       still under construction; every rank but the leader waits (at most 20 s)
//                       for PMIX_GROUP_LEADER_FAILED. Then rank 1 takes over: it invites the
//                       survivors to the same group, they join, and all wait for
//                       PMIX_GROUP_CONSTRUCT_COMPLETE (RFC 0033: "one of which can take over")
//   --timeout S         PMIX_TIMEOUT on the leader's invite and on each invitee's join, which is the
//                       blocking PMIx_Group_join on a thread of its own; each prints "invite join rank
//                       R: <status> after N ms" (the leader "invite done rank 0: <status> after N ms")
//   --silent-invitee R  with --timeout: rank R prints "invite silent rank R" and never answers. The
//                       leader waits (at most S + 10 s) for its invite to return; if it does not, it
//                       prints "invite no invite-return rank 0". Then it aborts the construct as
//                       above, and every other rank waits (at most 20 s) for the abort
// A rank whose wait ends without the event prints "invite no <event> rank R". Every rank then
// waits 1 s more (a second, unwanted event would show) and finalizes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

#include "client_util.h"

namespace {

const char* program = "invite";

struct Options {
    std::string id = "prte-test-invite";
    long late_invitee = -1;
    long decliner = -1;
    bool late_leader = false;
    int timeout = 0;
    long silent_invitee = -1;
};

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--id" && i + 1 < argc) {
            o.id = argv[++i];
        } else if (a == "--late-invitee" && i + 1 < argc) {
            o.late_invitee = std::atol(argv[++i]);
        } else if (a == "--decliner" && i + 1 < argc) {
            o.decliner = std::atol(argv[++i]);
        } else if (a == "--timeout" && i + 1 < argc) {
            o.timeout = std::atoi(argv[++i]);
        } else if (a == "--silent-invitee" && i + 1 < argc) {
            o.silent_invitee = std::atol(argv[++i]);
        } else if (a == "--late-leader") {
            o.late_leader = true;
        } else {
            prte_test::fail(program, "unknown argument '%s'", argv[i]);
        }
    }
    return o;
}

pmix_proc_t me;
Options opts;
uint32_t size = 0;
std::atomic<int> invite_returned{0};
std::atomic<int> heard_complete{0}, heard_abort{0}, heard_invite_failed{0}, heard_leader_failed{0}, heard_declined{0};

void late_and_wait()
{
    std::printf("invite late rank %u waits, pid %ld\n", me.rank, static_cast<long>(getpid()));
    std::fflush(stdout);
    sleep(120);
    prte_test::fail(program, "rank %u: still alive after 120 s", me.rank);
}

long long ms_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

// --timeout: the blocking join, which RFC 0033 says returns once the group is constructed or its
// construction failed, with an error after PMIX_TIMEOUT seconds.
void join_with_timeout(pmix_proc_t leader)
{
    pmix_info_t timeout;
    PMIX_INFO_LOAD(&timeout, PMIX_TIMEOUT, &opts.timeout, PMIX_INT);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    auto start = std::chrono::steady_clock::now();
    pmix_status_t rc = PMIx_Group_join(opts.id.c_str(), &leader, PMIX_GROUP_ACCEPT, &timeout, 1, &results, &nresults);
    std::printf("invite join rank %u: %s after %lld ms\n", me.rank, PMIx_Error_string(rc), ms_since(start));
    std::fflush(stdout);
    PMIX_INFO_DESTRUCT(&timeout);
    if (results) PMIX_INFO_FREE(results, nresults);
}

void on_event(size_t, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo, pmix_info_t*, size_t,
              pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string member = "-", group = "?";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            const pmix_proc_t* p = info[i].value.data.proc;
            member = std::string(p->nspace) + ":" + std::to_string(p->rank);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            group = info[i].value.data.string;
        }
    }
    // A decline names no member: its source is the invitee that declined.
    if (code == PMIX_GROUP_INVITE_DECLINED && source) member = std::string(source->nspace) + ":" + std::to_string(source->rank);
    std::printf("invite event rank %u: %s member %s group %s\n", me.rank, PMIx_Error_string(code), member.c_str(),
                group.c_str());
    std::fflush(stdout);
    switch (code) {
    case PMIX_GROUP_CONSTRUCT_COMPLETE: ++heard_complete; break;
    case PMIX_GROUP_CONSTRUCT_ABORT: ++heard_abort; break;
    case PMIX_GROUP_INVITE_FAILED: ++heard_invite_failed; break;
    case PMIX_GROUP_LEADER_FAILED: ++heard_leader_failed; break;
    case PMIX_GROUP_INVITE_DECLINED: ++heard_declined; break;
    case PMIX_GROUP_INVITED:
        if (source && source->rank != me.rank && group == opts.id) {
            if (opts.late_leader && me.rank == size - 1 && source->rank == 0) {
                std::printf("invite rank %u does not answer\n", me.rank);
                std::fflush(stdout);
            } else if (static_cast<long>(me.rank) == opts.decliner) {
                std::printf("invite rank %u declines\n", me.rank);
                std::fflush(stdout);
                pmix_status_t rc = PMIx_Group_join_nb(opts.id.c_str(), source, PMIX_GROUP_DECLINE, nullptr, 0, nullptr, nullptr);
                if (rc != PMIX_SUCCESS) {
                    std::printf("invite join failed rank %u: %s\n", me.rank, PMIx_Error_string(rc));
                    std::fflush(stdout);
                }
            } else if (static_cast<long>(me.rank) == opts.late_invitee) {
                std::printf("invite late rank %u waits, pid %ld\n", me.rank, static_cast<long>(getpid()));
                std::fflush(stdout);
            } else if (static_cast<long>(me.rank) == opts.silent_invitee) {
                std::printf("invite silent rank %u\n", me.rank);
                std::fflush(stdout);
            } else if (opts.timeout > 0) {
                std::thread(join_with_timeout, *source).detach();
            } else {
                pmix_status_t rc = PMIx_Group_join_nb(opts.id.c_str(), source, PMIX_GROUP_ACCEPT, nullptr, 0, nullptr, nullptr);
                if (rc != PMIX_SUCCESS) {
                    std::printf("invite join failed rank %u: %s\n", me.rank, PMIx_Error_string(rc));
                    std::fflush(stdout);
                }
            }
        }
        break;
    default: break;
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

// PMIx 4.2.2's PMIx_Group_invite_nb calls back once the invitations are sent; only the blocking
// form waits for the answers and then declares the group complete. So it runs on a thread of its
// own, leaving the main thread free to wait for failure events.
void invite(const std::vector<pmix_proc_t>& invitees)
{
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_info_t timeout;
    PMIX_INFO_LOAD(&timeout, PMIX_TIMEOUT, &opts.timeout, PMIX_INT);
    auto start = std::chrono::steady_clock::now();
    pmix_status_t rc = PMIx_Group_invite(opts.id.c_str(), invitees.data(), invitees.size(),
                                         opts.timeout > 0 ? &timeout : nullptr, opts.timeout > 0 ? 1 : 0, &results, &nresults);
    if (opts.timeout > 0) {
        std::printf("invite done rank %u: %s after %lld ms\n", me.rank, PMIx_Error_string(rc), ms_since(start));
    } else {
        std::printf("invite done rank %u: %s\n", me.rank, PMIx_Error_string(rc));
    }
    std::fflush(stdout);
    PMIX_INFO_DESTRUCT(&timeout);
    ++invite_returned;
    if (results) PMIX_INFO_FREE(results, nresults);
}

// Waits (at most 20 s) until `counter` is set; says so when it never was.
void wait_for(const std::atomic<int>& counter, const char* name)
{
    for (int hundredths = 0; hundredths < 2000 && counter.load() == 0; ++hundredths) usleep(10000);
    if (counter.load() == 0) {
        std::printf("invite no %s rank %u\n", name, me.rank);
        std::fflush(stdout);
    }
}

void raise_abort(const pmix_proc_t* invitees, size_t n)
{
    pmix_info_t info[2];
    pmix_data_array_t range{PMIX_PROC, n, const_cast<pmix_proc_t*>(invitees)};
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_ID, opts.id.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Notify_event(PMIX_GROUP_CONSTRUCT_ABORT, &me, PMIX_RANGE_CUSTOM, info, 2, nullptr, nullptr);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        prte_test::fail(program, "cannot raise PMIX_GROUP_CONSTRUCT_ABORT: %s", PMIx_Error_string(rc));
    }
}

}  // namespace

int main(int argc, char** argv)
{
    opts = parse(argc, argv);
    me = prte_test::init(program);
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    size = static_cast<uint32_t>(prte_test::get_integer(program, &all, PMIX_JOB_SIZE));
    pmix_status_t codes[] = {PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE, PMIX_GROUP_CONSTRUCT_ABORT,
                             PMIX_GROUP_INVITE_FAILED, PMIX_GROUP_LEADER_FAILED};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 5, nullptr, 0, on_event, nullptr, nullptr);
    if (rc < 0) prte_test::fail(program, "cannot register the group events: %s", PMIx_Error_string(rc));
    if (me.rank == 0 && opts.decliner >= 0) {
        pmix_status_t declined = PMIX_GROUP_INVITE_DECLINED;
        rc = PMIx_Register_event_handler(&declined, 1, nullptr, 0, on_event, nullptr, nullptr);
        if (rc < 0) prte_test::fail(program, "cannot register for declines: %s", PMIx_Error_string(rc));
    }
    // Everyone listens before the leader invites.
    if ((rc = PMIx_Fence(&all, 1, nullptr, 0)) != PMIX_SUCCESS) prte_test::fail(program, "fence: %s", PMIx_Error_string(rc));

    if (me.rank == 0) {
        std::vector<pmix_proc_t> invitees(size);
        for (uint32_t r = 0; r < size; ++r) PMIX_LOAD_PROCID(&invitees[r], me.nspace, r);
        std::thread(invite, invitees).detach();
        if (opts.late_leader) late_and_wait();
        if (opts.silent_invitee >= 0) {
            for (int hundredths = 0; hundredths < (opts.timeout + 10) * 100 && invite_returned.load() == 0; ++hundredths) usleep(10000);
            if (invite_returned.load() == 0) {
                std::printf("invite no invite-return rank %u\n", me.rank);
                std::fflush(stdout);
            }
            raise_abort(invitees.data() + 1, size - 1);
        } else if (opts.late_invitee >= 0 || opts.decliner >= 0) {
            if (opts.decliner >= 0) {
                wait_for(heard_declined, "INVITE-DECLINED");
            } else {
                wait_for(heard_invite_failed, "INVITE-FAILED");
            }
            raise_abort(invitees.data() + 1, size - 1);
        } else {
            wait_for(heard_complete, "CONSTRUCT-COMPLETE");
        }
    } else if (static_cast<long>(me.rank) == opts.late_invitee) {
        sleep(120);
        prte_test::fail(program, "rank %u: still alive after 120 s", me.rank);
    } else if (opts.late_leader) {
        wait_for(heard_leader_failed, "LEADER-FAILED");
        if (me.rank == 1) {
            std::vector<pmix_proc_t> survivors(size - 1);
            for (uint32_t r = 1; r < size; ++r) PMIX_LOAD_PROCID(&survivors[r - 1], me.nspace, r);
            std::thread(invite, survivors).detach();
        }
        wait_for(heard_complete, "CONSTRUCT-COMPLETE");
    } else if (opts.late_invitee >= 0 || opts.decliner >= 0 || opts.silent_invitee >= 0) {
        wait_for(heard_abort, "CONSTRUCT-ABORT");
    } else {
        wait_for(heard_complete, "CONSTRUCT-COMPLETE");
    }
    sleep(1);
    prte_test::finalize(program);
    return 0;
}
