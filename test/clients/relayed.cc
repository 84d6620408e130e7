// relayed: the four requests a daemon relays to the master for a process of its node, made at once
// and non-blocking: PMIx_Spawn_nb (one /bin/true), PMIx_Allocation_request_nb (PMIX_ALLOC_NEW of
// one node), PMIx_Query_info_nb (PMIX_QUERY_ALLOC_STATUS) and PMIx_Lookup_nb with PMIX_WAIT of a
// key nobody publishes (which the master keeps waiting for as long as the job lives).
//
//   relayed <go file> <answers file>
//
// Prints "relayed waiting pid <pid>", waits for <go file> to exist, makes the four requests and,
// as each is answered, prints "relayed <spawn|allocation|query|lookup> <status>" and appends the
// same line to <answers file> (which a test reads even when the DVM's output path is gone). Exit 0
// once all four are answered, 1 when they are not within 60 seconds. SIGTERM is ignored, so that a daemon
// that kills its processes as it loses the master leaves this one its kill grace to take the
// answers it was given first.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "client_util.h"

namespace {

const char* const kProgram = "relayed";
std::mutex mutex;
std::condition_variable answered_cv;
int answered = 0;
std::string answers_file;

void record(const char* what, pmix_status_t status)
{
    std::string line = std::string("relayed ") + what + " " + PMIx_Error_string(status) + "\n";
    int fd = open(answers_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        if (write(fd, line.data(), line.size()) < 0) std::perror("relayed: write");
        close(fd);
    }
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
    {
        std::lock_guard<std::mutex> lock(mutex);
        answered++;
    }
    answered_cv.notify_all();
}

void on_spawn(pmix_status_t status, pmix_nspace_t, void*) { record("spawn", status); }

void on_allocation(pmix_status_t status, pmix_info_t*, size_t, void*, pmix_release_cbfunc_t release, void* release_data)
{
    record("allocation", status);
    if (release) release(release_data);
}

void on_query(pmix_status_t status, pmix_info_t*, size_t, void*, pmix_release_cbfunc_t release, void* release_data)
{
    record("query", status);
    if (release) release(release_data);
}

void on_lookup(pmix_status_t status, pmix_pdata_t*, size_t, void*) { record("lookup", status); }

constexpr int kRequests = 4;

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) prte_test::fail(kProgram, "usage: relayed <go file> <answers file>");
    signal(SIGTERM, SIG_IGN);
    answers_file = argv[2];
    pmix_proc_t me = prte_test::init(kProgram);
    (void)me;
    std::printf("relayed waiting pid %d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    for (int t = 0; access(argv[1], F_OK) != 0; ++t) {
        if (t >= 1200) prte_test::fail(kProgram, "%s did not appear within 120 seconds", argv[1]);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }

    pmix_app_t* app;
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup("/bin/true");
    app->argv = static_cast<char**>(calloc(2, sizeof(char*)));
    app->argv[0] = strdup("/bin/true");
    app->maxprocs = 1;
    pmix_status_t rc = PMIx_Spawn_nb(nullptr, 0, app, 1, on_spawn, nullptr);
    if (rc != PMIX_SUCCESS) record("spawn", rc);

    pmix_info_t nodes;
    uint64_t one = 1;
    PMIX_INFO_LOAD(&nodes, PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
    rc = PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, &nodes, 1, on_allocation, nullptr);
    if (rc != PMIX_SUCCESS) record("allocation", rc);

    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_ALLOC_STATUS);
    rc = PMIx_Query_info_nb(&query, 1, on_query, nullptr);
    if (rc != PMIX_SUCCESS) record("query", rc);

    char* keys[] = {const_cast<char*>("relayed-never-published"), nullptr};
    pmix_info_t wait;
    bool yes = true;
    PMIX_INFO_LOAD(&wait, PMIX_WAIT, &yes, PMIX_BOOL);
    rc = PMIx_Lookup_nb(keys, &wait, 1, on_lookup, nullptr);
    if (rc != PMIX_SUCCESS) record("lookup", rc);

    bool all = false;
    {
        std::unique_lock<std::mutex> lock(mutex);
        all = answered_cv.wait_for(lock, std::chrono::seconds(60), [] { return answered == kRequests; });
    }
    if (!all) {
        prte_test::fail(kProgram, "only %d of the %d requests were answered within 60 seconds", answered, kRequests);
    }
    // PMIx held the requests until it answered them; it is done with them now.
    PMIX_INFO_DESTRUCT(&wait);
    PMIX_QUERY_DESTRUCT(&query);
    PMIX_INFO_DESTRUCT(&nodes);
    PMIX_APP_FREE(app, 1);
    // No PMIx_Finalize: the tests that run this take the DVM away under it, and the finalize
    // handshake with a daemon that is going away may wait for nothing.
    return 0;
}
