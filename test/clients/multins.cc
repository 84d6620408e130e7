// multins: the PMIx calls under Open MPI's dynamic processes, over two namespaces, wherever their
// processes land (issue 32). Run as `multins C` under prun:
//  1. rank 0 of the parent job PMIx_Spawns C copies of this program ("child") and shares the
//     child namespace with its peers (put + fence over the parent job);
//  2. every parent and child: PMIx_Connect over both namespaces, PMIx_Put of "multins.who" =
//     "<nspace>:<rank>", a PMIx_Fence over both namespaces that collects data, PMIx_Get of that key
//     from every process of the other job, and PMIx_Disconnect over both.
// With "nocollect" after CHILDREN, the fence does not collect data: the gets go by direct modex.
// Each process prints "multins <parent|child> rank R host H got <N> of <other nspace>" once done.
// Any failure is a one-line message and exit 1.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "client_util.h"

namespace {

const char* program = "multins";
constexpr const char kChildKey[] = "multins.child";
constexpr const char kWhoKey[] = "multins.who";
bool no_collect = false;  // "nocollect" after the child count: the other job's data by direct modex

void put_string(const char* key, const std::string& value)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
}

void fence(const pmix_proc_t* procs, size_t nprocs, const char* what)
{
    pmix_info_t collect;
    bool yes = !no_collect;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(procs, nprocs, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Fence over %s failed: %s", what, PMIx_Error_string(rc));
}

// Rank 0 spawns; the child namespace reaches the other parents through the job's own store.
std::string spawn_children(const pmix_proc_t& me, int children, const char* self)
{
    std::string child_ns;
    if (me.rank == 0) {
        pmix_app_t* app;
        PMIX_APP_CREATE(app, 1);
        app->cmd = strdup(self);
        app->argv = static_cast<char**>(calloc(4, sizeof(char*)));
        app->argv[0] = strdup(self);
        app->argv[1] = strdup("child");
        if (no_collect) app->argv[2] = strdup("nocollect");
        app->maxprocs = children;
        char cwd[4096];
        if (getcwd(cwd, sizeof(cwd))) app->cwd = strdup(cwd);
        pmix_nspace_t ns;
        pmix_status_t rc = PMIx_Spawn(nullptr, 0, app, 1, ns);
        PMIX_APP_FREE(app, 1);
        if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Spawn of %d children failed: %s", children, PMIx_Error_string(rc));
        child_ns = ns;
        put_string(kChildKey, child_ns);
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    fence(&job, 1, "the parent job");
    if (me.rank != 0) {
        pmix_proc_t leader;
        PMIX_LOAD_PROCID(&leader, me.nspace, 0);
        child_ns = prte_test::get_string(program, &leader, kChildKey);
    }
    return child_ns;
}

std::string parent_namespace(const pmix_proc_t& me)
{
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&me, PMIX_PARENT_ID, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_PROC || !v->data.proc) {
        prte_test::fail(program, "a child without PMIX_PARENT_ID: %s", PMIx_Error_string(rc));
    }
    std::string ns = v->data.proc->nspace;
    PMIX_VALUE_RELEASE(v);
    return ns;
}

}  // namespace

int main(int argc, char** argv)
{
    bool is_child = argc > 1 && std::strcmp(argv[1], "child") == 0;
    int children = !is_child && argc > 1 ? std::atoi(argv[1]) : 0;
    no_collect = argc > 2 && std::strcmp(argv[2], "nocollect") == 0;
    if (!is_child && children < 1) prte_test::fail(program, "usage: multins CHILDREN (>= 1)");
    pmix_proc_t me = prte_test::init(program);
    std::string parent_ns = is_child ? parent_namespace(me) : std::string(me.nspace);
    std::string child_ns = is_child ? std::string(me.nspace) : spawn_children(me, children, argv[0]);

    pmix_proc_t both[2];
    PMIX_LOAD_PROCID(&both[0], parent_ns.c_str(), PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&both[1], child_ns.c_str(), PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Connect(both, 2, nullptr, 0);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "PMIx_Connect of %s and %s failed: %s", parent_ns.c_str(), child_ns.c_str(), PMIx_Error_string(rc));

    put_string(kWhoKey, std::string(me.nspace) + ":" + std::to_string(me.rank));
    fence(both, 2, "both jobs");
    // Every process of the other job: a value filed under the wrong process shows here.
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, is_child ? parent_ns.c_str() : child_ns.c_str(), PMIX_RANK_WILDCARD);
    int64_t other_size = prte_test::get_integer(program, &other, PMIX_JOB_SIZE);
    std::string got;
    for (int64_t r = 0; r < other_size; ++r) {
        other.rank = static_cast<pmix_rank_t>(r);
        got = prte_test::get_string(program, &other, kWhoKey);
        std::string expected = std::string(other.nspace) + ":" + std::to_string(r);
        if (got != expected) {
            prte_test::fail(program, "%s from %s:%u is '%s', expected '%s'", kWhoKey, other.nspace, other.rank, got.c_str(),
                            expected.c_str());
        }
    }
    got = std::to_string(other_size) + " of " + other.nspace;

    if ((rc = PMIx_Disconnect(both, 2, nullptr, 0)) != PMIX_SUCCESS) {
        prte_test::fail(program, "PMIx_Disconnect failed: %s", PMIx_Error_string(rc));
    }
    const char* host = std::getenv("PMIX_HOSTNAME");
    std::printf("multins %s rank %u host %s got %s\n", is_child ? "child" : "parent", me.rank, host ? host : "?", got.c_str());
    std::fflush(stdout);
    prte_test::finalize(program);
    return 0;
}
