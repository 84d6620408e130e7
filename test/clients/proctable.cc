// proctable: a PMIx tool that lists a DVM's jobs and their processes, what pps would show if
// PMIx 4.2.2's pps printed more than the namespaces. Usage: proctable <DVM URI>. Prints
// "job <nspace> rank <r> pid <pid> host <host> exe <executable>" per process of every job.
// With `--alloc [ID]` it asks PMIX_QUERY_ALLOC_STATUS instead (of allocation ID only, if given)
// and prints "alloc <line>" per line of the answer, or "alloc status <PMIx status>" on failure.
// With `--job-state NSPACE` it asks PMIX_QUERY_JOB_STATUS of that job and prints
// "job state <status> <prte.job.state>".
#include <pmix_tool.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "client_util.h"

namespace {

const char* program = "proctable";

std::vector<pmix_info_t> query(const char* key, const char* nspace, const char* qualifier_key = PMIX_NSPACE,
                               pmix_status_t* status = nullptr)
{
    pmix_query_t* q;
    PMIX_QUERY_CREATE(q, 1);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, q->keys, key);
    if (nspace) {
        PMIX_INFO_CREATE(q->qualifiers, 1);
        q->nqual = 1;
        PMIx_Info_load(&q->qualifiers[0], qualifier_key, nspace, PMIX_STRING);
    }
    pmix_info_t* results = nullptr;
    size_t n = 0;
    rc = PMIx_Query_info(q, 1, &results, &n);
    PMIX_QUERY_FREE(q, 1);
    if (status) {
        *status = rc;
        if (rc != PMIX_SUCCESS) return {};
    }
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "query %s failed: %s", key, PMIx_Error_string(rc));
    std::vector<pmix_info_t> out(results, results + n);  // shallow: results are never freed here
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    bool alloc = argc >= 3 && std::strcmp(argv[2], "--alloc") == 0;
    bool job_state = argc == 4 && std::strcmp(argv[2], "--job-state") == 0;
    if (argc != 2 && !(alloc && argc <= 4) && !job_state) {
        prte_test::fail(program, "usage: proctable <DVM URI> [--alloc [ID] | --job-state NSPACE]");
    }
    pmix_info_t info[1];
    PMIx_Info_load(&info[0], PMIX_SERVER_URI, argv[1], PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, 1);
    if (rc != PMIX_SUCCESS) prte_test::fail(program, "cannot connect to %s: %s", argv[1], PMIx_Error_string(rc));

    if (job_state) {
        std::vector<pmix_info_t> answer = query(PMIX_QUERY_JOB_STATUS, argv[3]);
        std::string status = "?", name = "?";
        for (const pmix_info_t& i : answer) {
            if (PMIX_CHECK_KEY(&i, PMIX_QUERY_JOB_STATUS)) status = PMIx_Error_string(i.value.data.status);
            if (PMIX_CHECK_KEY(&i, "prte.job.state") && i.value.type == PMIX_STRING) name = i.value.data.string;
        }
        std::printf("job state %s %s\n", status.c_str(), name.c_str());
        std::fflush(stdout);
        PMIx_tool_finalize();
        return 0;
    }
    if (alloc) {
        pmix_status_t status;
        std::vector<pmix_info_t> answer =
            query(PMIX_QUERY_ALLOC_STATUS, argc == 4 ? argv[3] : nullptr, PMIX_ALLOC_ID, &status);
        if (status != PMIX_SUCCESS) {
            std::printf("alloc status %s\n", PMIx_Error_string(status));
        } else if (answer.empty() || answer[0].value.type != PMIX_STRING) {
            prte_test::fail(program, "the allocation status is not a string");
        } else {
            std::stringstream lines(answer[0].value.data.string);
            for (std::string line; std::getline(lines, line);) std::printf("alloc %s\n", line.c_str());
        }
        std::fflush(stdout);
        PMIx_tool_finalize();
        return 0;
    }
    std::vector<pmix_info_t> ns = query(PMIX_QUERY_NAMESPACES, nullptr);
    if (ns.empty() || ns[0].value.type != PMIX_STRING) prte_test::fail(program, "no namespace list");
    std::stringstream list(ns[0].value.data.string);
    std::string nspace;
    while (std::getline(list, nspace, ',')) {
        if (nspace.find('@') == std::string::npos) continue;  // the DVM's own namespace
        std::vector<pmix_info_t> table = query(PMIX_QUERY_PROC_TABLE, nspace.c_str());
        for (const pmix_info_t& entry : table) {
            if (entry.value.type != PMIX_DATA_ARRAY || !entry.value.data.darray) continue;
            const pmix_data_array_t* array = entry.value.data.darray;
            if (array->type != PMIX_PROC_INFO) continue;
            const auto* procs = static_cast<const pmix_proc_info_t*>(array->array);
            for (size_t i = 0; i < array->size; ++i) {
                std::printf("job %s rank %u pid %d host %s exe %s\n", procs[i].proc.nspace, procs[i].proc.rank,
                            static_cast<int>(procs[i].pid), procs[i].hostname ? procs[i].hostname : "?",
                            procs[i].executable_name ? procs[i].executable_name : "?");
            }
        }
    }
    std::fflush(stdout);
    PMIx_tool_finalize();
    return 0;
}
