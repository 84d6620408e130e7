// spawn: dynamic process creation from inside a job (what MPI_Comm_spawn does). Rank 0 spawns two
// copies of jobinfo (argv[1], or the jobinfo next to this program) with PMIX_NOTIFY_COMPLETION,
// prints "spawned <child namespace>", waits for the child job's PMIX_EVENT_JOB_END and prints
// "spawn ok child <namespace>". Other ranks only initialise and finalise. Any failure (including
// no end event within 60 seconds) is a one-line message and exit 1. A first argument
// --oversubscribe asks for the child with PMIX_MAPBY ":OVERSUBSCRIBE" (a node with fewer slots
// than the parent and its children need). A first argument --child-may-fail (before it) accepts a
// child job that fails: "spawn child <namespace> ended: <status>", and exit 0 (what a parent that
// lets its children fail does, for prun --report-child-jobs-separately). A first argument --refused
// (before all others) asks for 100000 copies, more than any test's DVM holds, and expects the spawn
// to be refused: "spawn refused: <status>" and exit 0 (a parent handling the error, as an MPI program
// with MPI_ERRORS_RETURN does); a spawn that succeeds is a failure.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "client_util.h"

namespace {

const char* program = "spawn";

std::mutex mutex;
std::condition_variable ended_cv;
std::set<std::string> ended;               // namespaces whose end we were told of
std::string end_status_text;               // of the last one

void on_job_end(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo, pmix_info_t*, size_t,
                pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata)
{
    std::string nspace;
    pmix_status_t status = PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            nspace = info[i].value.data.proc->nspace;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS)) {
            int64_t v = 0;
            if (prte_test::value_to_integer(&info[i].value, v) || info[i].value.type == PMIX_STATUS) {
                status = info[i].value.type == PMIX_STATUS ? info[i].value.data.status : static_cast<pmix_status_t>(v);
            }
        }
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        ended.insert(nspace);
        end_status_text = status == PMIX_SUCCESS ? "" : PMIx_Error_string(status);
    }
    ended_cv.notify_all();
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

std::string jobinfo_path(int argc, char** argv)
{
    if (argc > 1) return argv[1];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) prte_test::fail(program, "cannot find my own path to locate jobinfo; give its path as argument");
    std::string path(self, static_cast<size_t>(n));
    return path.substr(0, path.rfind('/') + 1) + "jobinfo";
}

}  // namespace

int main(int argc, char** argv)
{
    pmix_proc_t me = prte_test::init(program);
    if (me.rank != 0) {
        prte_test::finalize(program);
        return 0;
    }
    bool refused = argc > 1 && std::strcmp(argv[1], "--refused") == 0;
    if (refused) {
        --argc;
        ++argv;
    }
    bool child_may_fail = argc > 1 && std::strcmp(argv[1], "--child-may-fail") == 0;
    if (child_may_fail) {
        --argc;
        ++argv;
    }
    bool oversubscribe = argc > 1 && std::strcmp(argv[1], "--oversubscribe") == 0;
    if (oversubscribe) {
        --argc;
        ++argv;
    }
    std::string child_program = jobinfo_path(argc, argv);
    if (access(child_program.c_str(), X_OK) != 0) prte_test::fail(program, "%s is not an executable", child_program.c_str());

    pmix_status_t code = PMIX_EVENT_JOB_END;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, nullptr, 0, on_job_end, nullptr, nullptr);
    if (rc < 0) prte_test::fail(program, "cannot register for job-end events: %s", PMIx_Error_string(rc));

    pmix_app_t* app;
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup(child_program.c_str());
    app->argv = static_cast<char**>(calloc(2, sizeof(char*)));
    app->argv[0] = strdup(child_program.c_str());
    app->maxprocs = refused ? 100000 : 2;
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd))) app->cwd = strdup(cwd);
    pmix_info_t job_info[2];
    bool notify = true;
    PMIX_INFO_LOAD(&job_info[0], PMIX_NOTIFY_COMPLETION, &notify, PMIX_BOOL);
    PMIX_INFO_LOAD(&job_info[1], PMIX_MAPBY, ":OVERSUBSCRIBE", PMIX_STRING);
    pmix_nspace_t child;
    rc = PMIx_Spawn(job_info, oversubscribe ? 2 : 1, app, 1, child);
    PMIX_INFO_DESTRUCT(&job_info[0]);
    PMIX_INFO_DESTRUCT(&job_info[1]);
    PMIX_APP_FREE(app, 1);
    if (refused) {
        if (rc == PMIX_SUCCESS) prte_test::fail(program, "PMIx_Spawn of 100000 x %s succeeded: %s", child_program.c_str(), child);
        std::printf("spawn refused: %s\n", PMIx_Error_string(rc));
        prte_test::finalize(program);
        return 0;
    }
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Spawn of 2 x %s failed: %s", child_program.c_str(), PMIx_Error_string(rc));
    std::printf("spawned %s\n", child);
    std::fflush(stdout);

    {
        std::unique_lock<std::mutex> lock(mutex);
        if (!ended_cv.wait_for(lock, std::chrono::seconds(60), [&] { return ended.count(child) > 0; })) {
            prte_test::fail(program, "no PMIX_EVENT_JOB_END for the child job %s within 60 seconds", child);
        }
        if (child_may_fail) {
            std::printf("spawn child %s ended: %s\n", child, end_status_text.empty() ? "ok" : end_status_text.c_str());
        } else if (!end_status_text.empty()) {
            prte_test::fail(program, "the child job %s failed: %s", child, end_status_text.c_str());
        }
    }
    std::printf("spawn ok child %s\n", child);
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
