// failwatch: hears of other processes' failures through PMIx events. Every rank registers for
// PMIX_ERR_PROC_ABORTED_BY_SIG and PMIX_ERR_EXIT_NONZERO_TERM, then:
//   --die R [--not-watching W:X]  rank R kills itself (SIGKILL) once every rank has registered (a
//                                 fence); the others registered with PMIX_EVENT_AFFECTED_PROC =
//                                 rank R, except rank W, which asked about rank X only. The ranks
//                                 that watch R print "failwatch rank N host H got <code> affected
//                                 <nspace>:<rank>" when the event comes (at most 30 s); then all
//                                 survivors fence among themselves and rank W prints
//                                 "failwatch rank W host H not watching got C" (C events, 0 expected).
//   --listen                      (another job) every rank registers for any process, prints
//                                 "failwatch listening rank N", and waits for one failure event,
//                                 printed as above.
// Exit 0 once it has printed; 1 on an error or when nothing came.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_util.h"

namespace {

const char* program = "failwatch";

std::mutex lock;
std::condition_variable changed;
int events = 0;
std::string first;  // "<code> affected <nspace>:<rank>"

void on_event(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*,
              size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string affected = "?";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            const pmix_proc_t* p = info[i].value.data.proc;
            affected = std::string(p->nspace) + ":" + std::to_string(p->rank);
        }
    }
    {
        std::lock_guard<std::mutex> g(lock);
        if (events++ == 0) first = std::string(PMIx_Error_string(status)) + " affected " + affected;
    }
    changed.notify_all();
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void registered(pmix_status_t status, size_t, void* cbdata)
{
    static_cast<std::atomic<int>*>(cbdata)->store(status == PMIX_SUCCESS ? 1 : -1);
}

// Registers for the failure codes, about `watched` only when given.
void watch(const pmix_proc_t* watched)
{
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_EXIT_NONZERO_TERM};
    pmix_info_t info[1];
    size_t ninfo = 0;
    if (watched) PMIX_INFO_LOAD(&info[ninfo++], PMIX_EVENT_AFFECTED_PROC, watched, PMIX_PROC);
    std::atomic<int> done{0};
    PMIx_Register_event_handler(codes, 2, ninfo ? info : nullptr, ninfo, on_event, registered, &done);
    for (int i = 0; i < 3000 && done.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (done.load() != 1) prte_test::fail(program, "cannot register for failure events");
}

bool wait_for_event(std::chrono::seconds limit)
{
    std::unique_lock<std::mutex> g(lock);
    return changed.wait_for(g, limit, [] { return events > 0; });
}

// The node the DVM placed us on (local test-bed nodes share one kernel hostname).
std::string host(const pmix_proc_t& me)
{
    pmix_value_t* value = nullptr;
    std::string name = "?";
    if (PMIx_Get(&me, PMIX_HOSTNAME, nullptr, 0, &value) == PMIX_SUCCESS && value) {
        if (value->type == PMIX_STRING && value->data.string) name = value->data.string;
        PMIX_VALUE_RELEASE(value);
    }
    return name;
}

}  // namespace

int main(int argc, char** argv)
{
    int die = -1, quiet = -1, quiet_watches = -1;
    bool listen = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--die") && i + 1 < argc) {
            die = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--not-watching") && i + 1 < argc) {
            if (std::sscanf(argv[++i], "%d:%d", &quiet, &quiet_watches) != 2) prte_test::fail(program, "--not-watching W:X");
        } else if (!std::strcmp(argv[i], "--listen")) {
            listen = true;
        } else {
            prte_test::fail(program, "usage: failwatch --die R [--not-watching W:X] | --listen");
        }
    }
    if (die < 0 && !listen) prte_test::fail(program, "usage: failwatch --die R [--not-watching W:X] | --listen");

    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Init failed");
    int rank = static_cast<int>(me.rank);
    if (listen) {
        watch(nullptr);
        std::printf("failwatch listening rank %d\n", rank);
        std::fflush(stdout);
        if (!wait_for_event(std::chrono::seconds(60))) prte_test::fail(program, "rank %d: no failure event came", rank);
        std::printf("failwatch rank %d host %s got %s\n", rank, host(me).c_str(), first.c_str());
        std::fflush(stdout);
        PMIx_Finalize(nullptr, 0);
        return 0;
    }

    pmix_proc_t victim, other;
    PMIX_LOAD_PROCID(&victim, me.nspace, static_cast<pmix_rank_t>(die));
    PMIX_LOAD_PROCID(&other, me.nspace, static_cast<pmix_rank_t>(quiet_watches));
    if (rank != die) watch(rank == quiet ? &other : &victim);
    if (PMIx_Fence(nullptr, 0, nullptr, 0) != PMIX_SUCCESS) prte_test::fail(program, "fence failed");
    if (rank == die) raise(SIGKILL);

    if (rank != quiet) {
        if (!wait_for_event(std::chrono::seconds(30))) prte_test::fail(program, "rank %d: no failure event came", rank);
        std::printf("failwatch rank %d host %s got %s\n", rank, host(me).c_str(), first.c_str());
        std::fflush(stdout);
    }
    // The survivors meet once every watcher has its event: an event for the quiet rank would have
    // reached it by then, ahead of the fence's release on the same connection.
    pmix_value_t* value = nullptr;
    pmix_proc_t wildcard;
    PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0;
    if (PMIx_Get(&wildcard, PMIX_JOB_SIZE, nullptr, 0, &value) == PMIX_SUCCESS && value) {
        int64_t n = 0;
        if (prte_test::value_to_integer(value, n)) size = static_cast<uint32_t>(n);
        PMIX_VALUE_RELEASE(value);
    }
    std::vector<pmix_proc_t> survivors;
    for (uint32_t r = 0; r < size; ++r) {
        if (static_cast<int>(r) == die) continue;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        survivors.push_back(p);
    }
    if (PMIx_Fence(survivors.data(), survivors.size(), nullptr, 0) != PMIX_SUCCESS) {
        prte_test::fail(program, "rank %d: the survivors' fence failed", rank);
    }
    if (rank == quiet) {
        std::lock_guard<std::mutex> g(lock);
        std::printf("failwatch rank %d host %s not watching got %d\n", rank, host(me).c_str(), events);
        std::fflush(stdout);
    }
    PMIx_Finalize(nullptr, 0);
    return 0;
}
